package vlist

// IndicatorOf is Indicator for a list whose owner draws the rows itself
// (rows of any height, as the chat's turns): above and below are the rows
// the owner's window leaves out of view. "" when both are 0.
func (m *Model[T]) IndicatorOf(above, below int) string {
	return indicator(m.Position(), above, below)
}

// Counter is the indicator's words for a window without a cursor: what
// stands first (as "30 turns"), then the rows out of view above and below
// ("30 turns · ↑ 27"). "" when both are 0.
func Counter(first string, above, below int) string {
	return indicator(first, above, below)
}
