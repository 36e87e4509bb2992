package textindex
import ("testing";"fmt";"time")
func TestDbgStats(t *testing.T){
  docs := corpusDocs(100000, 2024)
  size := 0
  for _, d := range docs { for _, f := range d.Fields { size += len(f.Text) } }
  for range 3 {
  c0 := processCPU(); t0 := time.Now()
  ix := New(Options{})
  ix.AddBatch(docs)
  fmt.Println("wall", time.Since(t0), "cpu", processCPU()-c0)
  np := 0
  for _, p := range ix.posts { np += len(p.docs) }
  var tl uint64
  for _, x := range ix.totals { tl += x }
  fmt.Println("bytes", size, "terms", len(ix.terms), "postings", np, "tokens", tl, ix.avgLens())
  }
}
