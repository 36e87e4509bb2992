package yamldoc

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// IsYAML reports whether a directory entry is a library file: *.yaml or
// *.yml, not hidden.
func IsYAML(name string) bool {
	if strings.HasPrefix(name, ".") {
		return false
	}
	ext := strings.ToLower(path.Ext(name))
	return ext == ".yaml" || ext == ".yml"
}

// ReadDir reads every library file directly in dir (a missing dir is fine)
// through the guard: a symbolic link or anything else that is no regular
// file is refused, naming it, so nothing outside the folder is read. parse
// turns one file into an item and its key (the field named keyField); an
// item whose key an earlier file already defined is refused, naming both
// files. keep is called for every good item, in file-name order. Good files
// load even when others are bad; every problem is returned naming its file.
// kind names the format in messages ("skill", "workflow").
func ReadDir[T any](dir, kind, keyField string, parse func(file string, data []byte) (T, string, []error), keep func(T)) []error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return []error{fmt.Errorf("read %ss dir %s: %w", kind, dir, err)}
	}
	var errs []error
	owner := map[string]string{}
	for _, e := range entries {
		if e.IsDir() || !IsYAML(e.Name()) {
			continue
		}
		file := filepath.Join(dir, e.Name())
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			errs = append(errs, NotRegular(file))
			continue
		}
		data, err := ReadFile(file, kind) // at most MaxSize bytes read
		if err != nil {
			errs = append(errs, err)
			continue
		}
		item, key, perrs := parse(file, data)
		if len(perrs) > 0 {
			errs = append(errs, perrs...)
			continue
		}
		if first, dup := owner[key]; dup {
			errs = append(errs, &Error{File: file, Field: keyField, Msg: fmt.Sprintf("%s %q is already defined in %s", kind, key, first)})
			continue
		}
		owner[key] = file
		keep(item)
	}
	return errs
}
