package owner

// AllowUID makes the owner accept only uid (tests of refused users).
func AllowUID[T interface{ Close() error }](o *Options[T], uid int) {
	o.uid, o.uidSet = uid, true
}
