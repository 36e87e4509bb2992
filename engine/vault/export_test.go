package vault

// Test hooks for the vault_test package.

// SetImportChunk sets the records per transaction of v's large imports.
func SetImportChunk(v *Vault, n int) { v.importChunk = n }

// SetImportChunkHook runs fn after each committed chunk of v's large imports.
func SetImportChunkHook(v *Vault, fn func(chunk int) error) { v.chunkHook = fn }

// ErrSimulatedCrash, returned by a chunk hook, stops the import as a killed process would.
var ErrSimulatedCrash = errSimulatedCrash
