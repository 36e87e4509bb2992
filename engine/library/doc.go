// Package library is the home of nova's reusable know-how, kept as data
// (docs/library.md describes the formats):
//
//   - tmpl: Jinja-style templates (gonja v2) in a sandbox; values are data;
//   - params: typed parameters (string, integer, number, boolean, enum)
//     whose problems wrap params.ErrUsage and name the parameter;
//   - skills: deterministic tool macros, the runSkill tool and VENUS's
//     generateUIComponent;
//   - workflow: parameterised, conditional agent and skill steps run as
//     one-task builds, stored in workflow_runs and resumable;
//   - blueprint: parameterised PRD templates with versions and evidence.
//
// The facade wiring (*engine.Local methods) is engine/library.go.
package library
