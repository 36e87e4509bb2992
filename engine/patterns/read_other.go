//go:build !(linux || darwin)

package patterns

import "os"

// readFast is the fast path of reading a file of a Root on Linux and macOS; elsewhere files
// are read the general way.
func (o *opener) readFast(string, int64) ([]byte, bool, error) { return nil, false, nil }

// dirFile is the folder readFast keeps open (never, here).
type dirFile = *os.File
