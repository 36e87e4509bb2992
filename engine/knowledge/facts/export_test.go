package facts

// Rebuilds is how many times the snapshot re-read the workspace file.
func Rebuilds(s *Service) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.mem.rebuilds
}
