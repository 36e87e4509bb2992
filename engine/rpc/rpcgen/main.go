// Command rpcgen writes the remote client of an interface served by
// engine/rpc, and the wire registry of sentinel errors and error types.
// It is run by //go:generate lines, e.g. in engine/remote:
//
//	go generate ./engine/remote
//
// Flags:
//
//	-iface import/path.Name   the interface to implement (required)
//	-type Name                the generated type; its constructor is NewName (required)
//	-out file                 the client's file (default zz_generated_remote.go)
//	-idempotent A,B           methods retried once after a lost connection
//	-local Close              methods the client implements itself
//	-errors pattern,…         packages whose sentinels and error types cross the wire
//	-errors-out file          the registry's file (default zz_generated_errors.go)
//	-errors-exclude path,…    import paths (…/... below) left out of the registry
package main

import (
	"fmt"
	"os"
	"sort"

	"github.com/nova-dev/nova/engine/rpc/gen"
)

func main() {
	cfg, err := gen.ParseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	cfg.Dir = "."
	res, err := gen.Write(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	names := make([]string, 0, len(res.Skipped))
	for n := range res.Skipped {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "rpcgen: %s: not generated: %s\n", n, res.Skipped[n])
	}
}
