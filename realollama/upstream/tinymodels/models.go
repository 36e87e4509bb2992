package tinymodels

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ollama/ollama/fs/ggml"
)

// How the tiny models work
//
// Every chat model is a one-layer llama whose attention and feed-forward
// weights are zero, so the hidden state after the layer is the current
// token's embedding: the model is a bigram table. Each "state" token (a
// script marker or a piece of a scripted reply) gets a random ±1 code as its
// embedding, and the output matrix row of the token that must follow it is
// that same code, so the next token is the scripted one with a logit of
// about 63 against noise of about 8: greedy at any temperature. One
// dimension is reserved for "the text ends here" (the end-of-text row reads
// only it), so ends never depend on how many replies share that row. Every
// other token (words, bytes) shares one "filler" code whose successor is the
// end of the text, or, where a format grammar forbids the end, a closing
// quote or bracket.
//
// The chat template (ChatML with .Tools) picks the script: it scans the first
// user message for a directive "@@name@@" and ends the prompt with the marker
// token "⟦name·N⟧", N being the number of assistant messages so far. The
// marker is the last prompt token, so the reply is the chain that starts
// after it. Without a directive the script is "plain".
//
// The embedding model shares the vocabulary, gives every token its own random
// code, and averages them with its attention layer (see WriteEmbedModel), so
// texts that share words get close vectors.

// Dim is the embedding length of the tiny models.
const Dim = 64

// Script is a scripted conversation: Steps[n] is the reply when n assistant
// messages came before.
type Script struct {
	Name  string
	Steps []string
	// Loop makes the last piece of the last step repeat forever (the real
	// server stops such a stream after 30 repeats, without done).
	Loop string
}

// Directive is what a prompt contains to select the script.
func (s Script) Directive() string { return "@@" + s.Name + "@@" }

func marker(name string, step int) string { return fmt.Sprintf("⟦%s·%d⟧", name, step) }

// ToolCall renders a tool call the way the template's tool tag expects.
func ToolCall(name string, args map[string]string) string {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString("<tool_call>\n{\"name\": " + jsonString(name) + ", \"arguments\": {")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(jsonString(k) + ": " + jsonString(args[k]))
	}
	b.WriteString("}}\n</tool_call>")
	return b.String()
}

// Token types of GGUF/llama.cpp.
const (
	tokNormal      = 1
	tokUnknown     = 2
	tokControl     = 3
	tokUserDefined = 4
	tokByte        = 6
)

type vocab struct {
	texts  []string
	scores []float32
	types  []int32
	index  map[string]int32
}

func (v *vocab) add(text string, score float32, typ int32) int32 {
	if id, ok := v.index[text]; ok {
		return id
	}
	id := int32(len(v.texts))
	v.texts = append(v.texts, text)
	v.scores = append(v.scores, score)
	v.types = append(v.types, typ)
	v.index[text] = id
	return id
}

// baseVocab is the tokenizer part every model shares: specials, the 256 byte
// fallbacks, ChatML controls and SentencePiece word pieces: printable ASCII
// characters, lower-case bigrams and trigrams, common code and JSON
// punctuation, and whole words (with every prefix, so the merges reach
// them), each also with the "▁" word start. With the words of nova's own
// prompts this tokenizes them at about four characters a token, like a real
// model's tokenizer.
func baseVocab(words []string) *vocab {
	v := &vocab{index: map[string]int32{}}
	v.add("<unk>", 0, tokUnknown)
	v.add("<s>", 0, tokControl)
	v.add("</s>", 0, tokControl)
	for b := range 256 {
		v.add(fmt.Sprintf("<0x%02X>", b), 0, tokByte)
	}
	v.add("<|im_start|>", 0, tokControl)
	v.add("<|im_end|>", 0, tokControl)
	const sp = "▁"
	for c := byte(0x21); c < 0x7f; c++ {
		v.add(string(c), -1, tokNormal)
	}
	v.add(sp, -1, tokNormal)
	for c := byte(0x21); c < 0x7f; c++ {
		v.add(sp+string(c), -2, tokNormal)
	}
	letters := "abcdefghijklmnopqrstuvwxyz"
	for _, a := range letters {
		for _, b := range letters {
			v.add(string(a)+string(b), -2, tokNormal)
			v.add(sp+string(a)+string(b), -3, tokNormal)
		}
	}
	for _, a := range letters {
		for _, b := range letters {
			for _, c := range letters {
				v.add(string(a)+string(b)+string(c), -3, tokNormal)
				v.add(sp+string(a)+string(b)+string(c), -4, tokNormal)
			}
		}
	}
	for _, p := range punctuation {
		for i := 2; i <= len(p); i++ {
			v.add(p[:i], float32(i), tokNormal)
		}
	}
	for _, w := range words {
		for _, form := range []string{w, sp + w, sp + strings.ToUpper(w[:1]) + w[1:]} {
			for i := 4; i <= len(form); i++ {
				if !utf8.RuneStart(form[i%len(form)]) && i < len(form) {
					continue
				}
				v.add(form[:i], float32(i), tokNormal)
			}
		}
	}
	return v
}

// punctuation are multi-character pieces of code and JSON.
var punctuation = []string{
	`": "`, `", "`, `{"`, `"}`, `":`, `",`, `"]`, `["`, `}}`, `]}`, `}]`, `()`, `);`, `//`, `->`, `:=`, `==`, `!=`,
	`&&`, `||`, `...`, `**`, `##`, "``", `/>`, `</`, `./`, `.go`, `.md`, `.txt`, `.json`, `.yaml`,
}

// chain is the scripted successor table of a chat model.
type chain struct {
	v    *vocab
	next map[int32]int32 // state token -> the token after it
}

const eosID = 2

// pieces splits a reply into vocabulary pieces no other token has: 4 to 32
// bytes each (so never a word piece), cut on rune boundaries. It searches
// depth-first, preferring pieces of about six bytes.
func (c *chain) pieces(s string) []int32 {
	var cuts []string
	taken := func(p string) bool {
		if _, ok := c.v.index[p]; ok {
			return true
		}
		return slices.Contains(cuts, p)
	}
	dead := map[int]bool{}
	var walk func(pos int) bool
	walk = func(pos int) bool {
		if pos == len(s) {
			return true
		}
		if dead[pos] {
			return false
		}
		for _, n := range []int{6, 7, 5, 8, 4, 9, 10, 11, 12, 14, 16, 20, 24, 28, 32} {
			end := pos + runeCut(s[pos:], n)
			if end-pos < 4 && end != len(s) || end == pos {
				continue
			}
			p := s[pos:end]
			if len(p) < 4 || taken(p) {
				continue
			}
			cuts = append(cuts, p)
			if walk(end) {
				return true
			}
			cuts = cuts[:len(cuts)-1]
		}
		dead[pos] = true
		return false
	}
	if !walk(0) {
		panic(fmt.Sprintf("tinymodels: cannot split %q into unique pieces", s))
	}
	ids := make([]int32, len(cuts))
	for i, p := range cuts {
		ids[i] = c.v.add(p, 0, tokNormal)
	}
	return ids
}

// runeCut moves n back to a rune boundary of s (n capped at len(s)).
func runeCut(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return n
}

func (c *chain) script(s Script) {
	for i, step := range s.Steps {
		m := c.v.add(marker(s.Name, i), 0, tokUserDefined)
		prev := m
		for _, id := range c.pieces(step) {
			c.next[prev] = id
			prev = id
		}
		if i == len(s.Steps)-1 && s.Loop != "" {
			loop := c.pieces(s.Loop)
			if len(loop) != 1 {
				panic("tinymodels: a loop text must be one piece (4 to 32 bytes)")
			}
			c.next[prev] = loop[0]
			c.next[loop[0]] = loop[0]
			continue
		}
		c.next[prev] = eosID
	}
}

// ModelFile is one generated GGUF file.
type ModelFile struct {
	Path   string
	Digest string // "sha256:…"
}

// ChatModelSpec describes a generated chat model file.
type ChatModelSpec struct {
	ContextLength uint32
	Scripts       []Script
	// Words become whole-word tokenizer pieces.
	Words []string
}

// code returns a deterministic ±1 vector for token id under seed.
func code(seed uint64, id int32) []float32 {
	r := rand.New(rand.NewPCG(seed, uint64(id)+1))
	out := make([]float32, Dim)
	for i := range out {
		if r.IntN(2) == 0 {
			out[i] = 1
		} else {
			out[i] = -1
		}
	}
	return out
}

func gauss(seed uint64, id int32) []float32 {
	r := rand.New(rand.NewPCG(seed, uint64(id)+1))
	out := make([]float32, Dim)
	for i := range out {
		out[i] = float32(r.NormFloat64())
	}
	return out
}

// f32 is a tensor of float32 values, written little-endian.
type f32 []float32

func (t f32) WriteTo(w io.Writer) (int64, error) {
	buf := make([]byte, 4*len(t))
	for i, x := range t {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(x))
	}
	n, err := w.Write(buf)
	return int64(n), err
}

func filled(n int, x float32) f32 {
	out := make(f32, n)
	for i := range out {
		out[i] = x
	}
	return out
}

func tensor(name string, data f32, shape ...uint64) *ggml.Tensor {
	return &ggml.Tensor{Name: name, Kind: 0, Shape: shape, WriterTo: data}
}

// identity is x times the Dim×Dim identity matrix.
func identity(x float32) f32 {
	m := make(f32, Dim*Dim)
	for i := range Dim {
		m[i*Dim+i] = x
	}
	return m
}

// layerTensors is one llama block whose contribution to the residual stream
// is zero: the hidden state stays the token's embedding.
func layerTensors() []*ggml.Tensor {
	const ff = Dim
	return []*ggml.Tensor{
		tensor("blk.0.attn_norm.weight", filled(Dim, 1), Dim),
		tensor("blk.0.attn_q.weight", filled(Dim*Dim, 0), Dim, Dim),
		tensor("blk.0.attn_k.weight", filled(Dim*Dim, 0), Dim, Dim),
		tensor("blk.0.attn_v.weight", filled(Dim*Dim, 0), Dim, Dim),
		tensor("blk.0.attn_output.weight", filled(Dim*Dim, 0), Dim, Dim),
		tensor("blk.0.ffn_norm.weight", filled(Dim, 1), Dim),
		tensor("blk.0.ffn_gate.weight", filled(Dim*ff, 0), Dim, ff),
		tensor("blk.0.ffn_up.weight", filled(Dim*ff, 0), Dim, ff),
		tensor("blk.0.ffn_down.weight", filled(ff*Dim, 0), ff, Dim),
	}
}

func baseKV(v *vocab, ctxLen uint32, arch string) ggml.KV {
	return ggml.KV{
		"general.architecture":                     arch,
		"general.name":                             "nova-tiny",
		"general.file_type":                        uint32(0),
		"general.alignment":                        uint32(32),
		arch + ".context_length":                   ctxLen,
		arch + ".embedding_length":                 uint32(Dim),
		arch + ".block_count":                      uint32(1),
		arch + ".feed_forward_length":              uint32(Dim),
		arch + ".attention.head_count":             uint32(1),
		arch + ".attention.head_count_kv":          uint32(1),
		arch + ".rope.dimension_count":             uint32(Dim),
		arch + ".attention.layer_norm_rms_epsilon": float32(1e-5),
		arch + ".vocab_size":                       uint32(len(v.texts)),
		"tokenizer.ggml.model":                     "llama",
		"tokenizer.ggml.tokens":                    v.texts,
		"tokenizer.ggml.scores":                    v.scores,
		"tokenizer.ggml.token_type":                v.types,
		"tokenizer.ggml.bos_token_id":              uint32(1),
		"tokenizer.ggml.eos_token_id":              uint32(eosID),
		"tokenizer.ggml.unknown_token_id":          uint32(0),
		"tokenizer.ggml.add_bos_token":             true,
		"tokenizer.ggml.add_eos_token":             false,
	}
}

// WriteChatModel writes a scripted chat model into dir and returns it.
func WriteChatModel(dir, name string, spec ChatModelSpec) (ModelFile, error) {
	c := &chain{v: baseVocab(spec.Words), next: map[int32]int32{}}
	for _, s := range spec.Scripts {
		c.script(s)
	}
	v := c.v
	n := len(v.texts)
	const seed = 0x6e6f7661 // "nova"
	// Dimension 0 is the "end" feature: +1 for tokens after which the text
	// ends (the last piece of a reply, and every word or byte), -1 for the
	// rest. Only the end-of-text row reads it, with a weight well above the
	// ~63 of a scripted successor, so a reply ends exactly where its script
	// does; the other dimensions carry the random codes.
	const endWeight = 100
	ends := func(id int32) float32 {
		if nx, ok := c.next[int32(id)]; ok && nx != eosID {
			return -1
		}
		return 1
	}
	filler := code(seed, -1)
	filler[0] = 1
	embd := make(f32, n*Dim)
	for id := range n {
		e := filler
		if _, ok := c.next[int32(id)]; ok {
			e = code(seed, int32(id))
			e[0] = ends(int32(id))
		}
		copy(embd[id*Dim:], e)
	}
	out := make(f32, n*Dim)
	add := func(row int32, vec []float32) {
		for i, x := range vec[1:] {
			out[int(row)*Dim+1+i] += x
		}
	}
	out[eosID*Dim] = endWeight
	// Where a grammar (a format schema) forbids the end, words and bytes
	// lean towards closing what is open instead, so that an unscripted
	// structured reply is a short valid document, not pages of noise.
	for _, closer := range []string{`"`, `}`, `]`, `"}`, `"]`, `}]`, `]}`, `}}`, `0`} {
		id, ok := v.index[closer]
		if !ok {
			continue
		}
		half := make([]float32, Dim)
		for i, x := range filler {
			half[i] = 0.6 * x
		}
		add(id, half)
	}
	// Deterministic order keeps the file (and its digest) stable.
	states := make([]int32, 0, len(c.next))
	for s := range c.next {
		states = append(states, s)
	}
	slices.Sort(states)
	for _, s := range states {
		if nx := c.next[s]; nx != eosID {
			add(nx, embd[int(s)*Dim:int(s)*Dim+Dim])
		}
	}
	ts := append([]*ggml.Tensor{
		tensor("token_embd.weight", embd, Dim, uint64(n)),
		tensor("output_norm.weight", filled(Dim, 1), Dim),
		tensor("output.weight", out, Dim, uint64(n)),
	}, layerTensors()...)
	return writeGGUF(dir, name, baseKV(v, spec.ContextLength, "llama"), ts)
}

// WriteEmbedModel writes a mean-pooling embedding model into dir.
func WriteEmbedModel(dir, name string, ctxLen uint32, words []string) (ModelFile, error) {
	v := baseVocab(words)
	n := len(v.texts)
	const seed = 0x656d6264 // "embd"
	embd := make(f32, n*Dim)
	for id := range n {
		copy(embd[id*Dim:], gauss(seed, int32(id)))
	}
	// llama.cpp ignores pooling_type for llama and embeds the last
	// token's hidden state; the key still makes Ollama list the model as
	// an embedding model. The mean is done by the attention layer instead:
	// Q and K are zero, so every position attends uniformly to all before
	// it, and V and the output projection pass the (normalised)
	// embeddings through, four times over the last token's own.
	kv := baseKV(v, ctxLen, "llama")
	kv["general.name"] = "nova-tiny-embed"
	kv["llama.pooling_type"] = uint32(1) // mean
	ts := []*ggml.Tensor{
		tensor("token_embd.weight", embd, Dim, uint64(n)),
		tensor("output_norm.weight", filled(Dim, 1), Dim),
		tensor("output.weight", filled(n*Dim, 0), Dim, uint64(n)),
	}
	for _, t := range layerTensors() {
		switch t.Name {
		case "blk.0.attn_v.weight":
			t.WriterTo = identity(1)
		case "blk.0.attn_output.weight":
			t.WriterTo = identity(4)
		}
		ts = append(ts, t)
	}
	return writeGGUF(dir, name, kv, ts)
}

// WriteBrokenModel writes a model the server accepts at create time (the
// metadata is sound) but cannot load: a tensor is missing.
func WriteBrokenModel(dir, name string) (ModelFile, error) {
	v := baseVocab(nil)
	n := len(v.texts)
	ts := []*ggml.Tensor{
		tensor("token_embd.weight", filled(n*Dim, 0), Dim, uint64(n)),
		tensor("output.weight", filled(n*Dim, 0), Dim, uint64(n)),
	}
	return writeGGUF(dir, name, baseKV(v, 2048, "llama"), ts)
}

func writeGGUF(dir, name string, kv ggml.KV, ts []*ggml.Tensor) (ModelFile, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ModelFile{}, err
	}
	path := filepath.Join(dir, name+".gguf")
	f, err := os.Create(path)
	if err != nil {
		return ModelFile{}, err
	}
	defer func() { _ = f.Close() }()
	if err := ggml.WriteGGUF(f, kv, ts); err != nil {
		return ModelFile{}, fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return ModelFile{}, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ModelFile{}, err
	}
	return ModelFile{Path: path, Digest: "sha256:" + hex.EncodeToString(h.Sum(nil))}, f.Close()
}

// ChatTemplate is the ChatML template of the scripted models; withTools
// decides whether it renders .Tools (and so whether the model has the
// "tools" capability).
func ChatTemplate(scripts []Script, withTools bool) string {
	var sel strings.Builder
	for _, s := range scripts {
		d := s.Directive()
		fmt.Fprintf(&sel, `{{- if and (ge (len $s) %d) (eq (slice $s 0 %d) %q) }}{{ $script = %q }}{{ $found = true }}{{ break }}{{ end }}`+"\n",
			len(d), len(d), d, s.Name)
	}
	var b strings.Builder
	b.WriteString(`{{- $script := "plain" }}{{ $found := false }}{{ $scanned := false }}{{ $turn := "" }}
{{- range .Messages }}
{{- if and (eq .Role "user") (not $scanned) }}{{ $scanned = true }}{{ $c := .Content }}
{{- range $i := len $c }}{{ $s := slice $c $i }}
{{- if and (ge (len $s) 4) (eq (slice $s 0 2) "@@") }}
`)
	b.WriteString(sel.String())
	b.WriteString(`{{- end }}
{{- end }}
{{- end }}
{{- if eq .Role "assistant" }}{{ $turn = printf "%s|" $turn }}{{ end }}
{{- end }}
`)
	b.WriteString(`{{- if .System }}<|im_start|>system
{{ .System }}`)
	if withTools {
		b.WriteString(`{{- if .Tools }}

# Tools
To call a function, answer with one JSON object inside <tool_call></tool_call> tags:
<tool_call>
{"name": <function name>, "arguments": <arguments as a JSON object>}
</tool_call>
The functions:
<tools>
{{- range .Tools }}
{{ . }}
{{- end }}
</tools>
{{- end }}`)
	}
	b.WriteString(`<|im_end|>
{{ end }}
{{- range .Messages }}
{{- if eq .Role "user" }}<|im_start|>user
{{ .Content }}<|im_end|>
{{ else if eq .Role "assistant" }}<|im_start|>assistant
{{ .Content }}
{{- if .ToolCalls }}<tool_call>
{{ range .ToolCalls }}{"name": "{{ .Function.Name }}", "arguments": {{ .Function.Arguments }}}
{{ end }}</tool_call>
{{- end }}<|im_end|>
{{ else if eq .Role "tool" }}<|im_start|>user
<tool_response>
{{ .Content }}
</tool_response><|im_end|>
{{ end }}
{{- end }}<|im_start|>assistant
`)
	b.WriteString(`{{ printf "⟦%s·%d⟧" $script (len $turn) }}`)
	return b.String()
}

// jsonString is s as a JSON string literal without HTML escaping.
func jsonString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}
