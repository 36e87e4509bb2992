//go:build amd64 && !purego

#include "textflag.h"

// func minMix512(sig, seeds, hashes []uint64)
TEXT ·minMix512(SB), NOSPLIT, $0-72
	MOVQ sig_base+0(FP), DI
	MOVQ sig_len+8(FP), CX
	MOVQ seeds_base+24(FP), SI
	MOVQ hashes_base+48(FP), R8
	MOVQ hashes_len+56(FP), R9
	MOVQ $0xbf58476d1ce4e5b9, AX
	VPBROADCASTQ AX, Z30
	MOVQ $0x94d049bb133111eb, AX
	VPBROADCASTQ AX, Z31
	XORQ R10, R10

block:
	CMPQ R10, CX
	JGE  done
	VMOVDQU64 (SI)(R10*8), Z0
	VMOVDQU64 (DI)(R10*8), Z1
	XORQ R11, R11

hash:
	CMPQ R11, R9
	JGE  store
	VPBROADCASTQ (R8)(R11*8), Z2
	VPXORQ  Z0, Z2, Z2
	VPSRLQ  $30, Z2, Z3
	VPXORQ  Z3, Z2, Z2
	VPMULLQ Z30, Z2, Z2
	VPSRLQ  $27, Z2, Z3
	VPXORQ  Z3, Z2, Z2
	VPMULLQ Z31, Z2, Z2
	VPSRLQ  $31, Z2, Z3
	VPXORQ  Z3, Z2, Z2
	VPMINUQ Z2, Z1, Z1
	INCQ R11
	JMP  hash

store:
	VMOVDQU64 Z1, (DI)(R10*8)
	ADDQ $8, R10
	JMP  block

done:
	VZEROUPPER
	RET
