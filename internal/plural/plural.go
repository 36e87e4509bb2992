// Package plural writes counts with the right noun for messages people read
// ("1 task", "3 tasks"), never "task(s)". English only: nova's text is
// English.
package plural

import "strconv"

// Count is n followed by one when n is 1 and by many otherwise.
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
