//go:build !unix

package hostile

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs on this system") }
