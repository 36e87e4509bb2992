package build

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/nova-dev/nova/engine/prd"
	"github.com/nova-dev/nova/internal/safefile"
)

// PlanFile is one build plan found in a directory, parsed and validated.
type PlanFile struct {
	Path  string `json:"path"`
	Name  string `json:"name"`
	Title string `json:"title"`
	Tasks int    `json:"tasks"`
	// Err is why the plan cannot start (parse or validation problems).
	Err error `json:"-"`
}

// ListPlans reads the *.json, *.yaml and *.yml plans in dir, parsing and
// validating each. known reports agent ids (nil accepts any). A plan that
// does not parse or validate is listed with its Err; only a directory that
// cannot be read is an error.
func ListPlans(dir string, known func(string) bool) ([]PlanFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []PlanFile
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.IsDir() || (ext != ".json" && ext != ".yaml" && ext != ".yml") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		f := PlanFile{Path: p, Name: e.Name()}
		var plan *prd.PRD
		data, err := safefile.ReadFile(p, prd.MaxSize) // never a FIFO or a device
		if err == nil {
			plan, err = prd.Parse(e.Name(), data) // errors name the file, not the path
		}
		if err == nil {
			f.Title, f.Tasks = plan.Meta.Name, len(plan.Tasks)
			err = prd.Validate(plan, known)
		}
		f.Err = err
		files = append(files, f)
	}
	return files, nil
}
