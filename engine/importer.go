package engine

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/nova-dev/nova/engine/importer"
)

// importState is the pattern importer of a Local, built on first use.
type importState struct {
	once sync.Once
	im   *importer.Importer
}

// Importer returns the workspace's pattern-library importer (engine/importer). The first call
// builds it; no I/O happens until an import runs. Its defaults come from config import.*; the
// embedding duplicate test uses models.embed through an Ollama client without retries, so an
// unreachable server costs one failed request.
func (l *core) Importer() *importer.Importer {
	l.imp.once.Do(func() {
		cfg := l.Config()
		ic := importer.Config{
			DedupThreshold: cfg.Import.DedupThreshold,
			BaseConfidence: cfg.Import.BaseConfidence,
			Now:            l.now,
			OnCommit: func(c importer.Commit) {
				l.Publish(Event{Type: EventChanged, Topic: TopicImport, Text: describeCommit(c)})
				l.Publish(Event{Type: EventLog, Topic: TopicImport, Text: describeCommit(c)})
			},
		}
		if cfg.Models.Embed != "" {
			quick := cfg
			quick.Ollama.Retries = 0
			if c, err := NewLLMClient(quick, l.getenv); err == nil {
				ic.Embedder, ic.EmbedModel = c, cfg.Models.Embed
			}
		}
		l.imp.im = importer.New(l.db, l.Vault(), ic)
	})
	return l.imp.im
}

// StarterPatternsDir is the shipped starter library inside a workspace: .nova/patterns.
func (l *core) StarterPatternsDir() string { return filepath.Join(l.ws.Dir(), "patterns") }

func describeCommit(c importer.Commit) string {
	if c.Undo {
		return fmt.Sprintf("import batch %d undone (%d nodes)", c.Batch, c.Nodes)
	}
	return fmt.Sprintf("import batch %d: %d nodes from %s", c.Batch, c.Nodes, c.Source)
}
