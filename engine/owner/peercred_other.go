//go:build !linux && !darwin

package owner

import "net"

// peerCred is not available here: the socket's mode (0600) and the
// runtime directory's (0700) are the only guards.
func peerCred(net.Conn) (cred, error) { return cred{}, errNoPeerCred }
