package team

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// KeyPrefix starts the text form of a public key (as engine/vault's
// signed wisdom writes it).
const KeyPrefix = "ed25519:"

// FormatKey is the text form of a public key.
func FormatKey(pub ed25519.PublicKey) string {
	return KeyPrefix + base64.StdEncoding.EncodeToString(pub)
}

// ParseKey reads the text form of a public key (the prefix optional).
func ParseKey(s string) (ed25519.PublicKey, error) {
	raw := strings.TrimPrefix(strings.TrimSpace(s), KeyPrefix)
	b, err := base64.StdEncoding.DecodeString(raw)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: %q is not a public key (want %s and the base64 of 32 bytes, as `nova wisdom key` prints it)",
			ErrInvalid, clip(s, 60), KeyPrefix)
	}
	return ed25519.PublicKey(b), nil
}

// NormalizeKey is the text form of the key s spells.
func NormalizeKey(s string) (string, error) {
	pub, err := ParseKey(s)
	if err != nil {
		return "", err
	}
	return FormatKey(pub), nil
}

// ShortKey is a short, stable name for a key: "k-" and 8 hex digits of its
// SHA-256 (how authors are shown).
func ShortKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "k-" + hex.EncodeToString(sum[:4])
}
