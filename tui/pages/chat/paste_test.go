package chat

import tea "charm.land/bubbletea/v2"

func teaPaste(s string) tea.Msg { return tea.PasteMsg{Content: s} }
