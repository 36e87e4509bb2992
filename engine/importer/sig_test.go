package importer

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// signatureOf hashes title and body without joining them; the signatures stored in file
// records must stay those of the joined text ("title\nbody", the summary without a body).
func TestSignatureOfIsTheJoinedText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ title, body, content string }{
		{"Use a debounce", "# Use a debounce\n\nWait until the user stops typing.\n", "summary"},
		{"Title only", "", "the summary stands in for the body"},
		{"", "", ""},
		{"Café crème", "\u0301brûlée — done", ""},
	} {
		body := tc.body
		if body == "" {
			body = tc.content
		}
		assert.Equal(t, minHasher.ShingleSignature(tc.title+"\n"+body, shingleLen), signatureOf(tc.title, tc.body, tc.content), "%+v", tc)
	}
}
