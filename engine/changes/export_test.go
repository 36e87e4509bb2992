package changes

// SetAfterWrite installs the fault-injection hook of s (see Store.afterWrite).
func SetAfterWrite(s *Store, fn func(path string) error) { s.afterWrite = fn }
