package importer

import (
	"strconv"
	"unicode/utf8"

	"github.com/nova-dev/nova/engine/patterns"
	"github.com/nova-dev/nova/engine/vault"
)

// Meta keys the importer sets on its nodes.
const (
	MetaCategory     = "category"
	MetaPriority     = "priority"
	MetaReusability  = "reusability"
	MetaCodeExamples = "codeExamples"
	MetaContentHash  = "contentHash"
	MetaImportUser   = vault.MetaImportUser
	MetaAnchor       = "anchor"
	MetaParentSource = "parentSource"
	// MetaLibrary is the label of the library a node was imported from.
	MetaLibrary = vault.MetaLibrary
)

// nodeFor turns a draft into a vault node: the mapping documented in the package comment,
// with the text clipped to the vault's limits (tags beyond vault.MaxTags and over-long tags
// are dropped, the title is cut on a rune boundary).
func nodeFor(d patterns.NodeDraft) vault.Node {
	t, err := vault.ParseNodeType(d.Type)
	if err != nil {
		t = vault.Pattern
	}
	tags := make([]string, 0, min(len(d.Tags), vault.MaxTags))
	for _, tag := range d.Tags {
		if len(tags) == vault.MaxTags {
			break
		}
		if tag != "" && len(tag) <= vault.MaxTagLen {
			tags = append(tags, tag)
		}
	}
	content := d.Content
	if content == "" {
		content = d.Title
	}
	if content == "" {
		content = d.Source
	}
	meta := map[string]string{
		MetaCategory:     d.Category,
		MetaPriority:     d.Priority,
		MetaReusability:  strconv.Itoa(d.Reusability),
		MetaCodeExamples: strconv.Itoa(d.CodeExampleCount),
		MetaContentHash:  d.ContentHash,
		MetaImportUser:   d.UserID,
	}
	if d.ParentSource != "" {
		meta[MetaParentSource] = d.ParentSource
		meta[MetaAnchor] = d.Anchor
	}
	return vault.Node{
		Type:       t,
		Title:      clipBytes(d.Title, vault.MaxTitleLen),
		Content:    clipBytes(content, vault.MaxContentLen),
		Body:       d.Body,
		Confidence: d.Confidence,
		UserID:     d.UserID,
		IsGlobal:   d.IsGlobal,
		Language:   d.Language,
		Tags:       tags,
		Source:     d.Source,
		Meta:       meta,
	}
}

// clipBytes cuts s to at most n bytes on a rune boundary.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
