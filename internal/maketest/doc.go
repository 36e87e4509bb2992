// Package maketest tests the repository's Makefile as a user runs it: the
// README's two commands (`make run`, `make test`) must never break each
// other. It has no code of its own.
package maketest
