package vaulttest

import "strings"

// Paraphrase is a query worded the way a user would ask, without the words of
// the pattern's title, and the BistroLens files (paths relative to the library
// root, without ".md") that answer it.
type Paraphrase struct {
	Query    string
	Relevant []string
}

// Paraphrases is the retrieval-quality set over the BistroLens pattern library
// (../shared/corpus/nova26/bistrolens-knowledge): nova's own tests and the peer
// benchmark (bench/peers) score every engine on it with Recall@5 and MRR.
var Paraphrases = []Paraphrase{
	{"keep a record but mark it as removed instead of erasing it", []string{"01-convex-patterns/soft-delete-pattern"}},
	{"show a spinner or skeleton while data arrives", []string{"04-ui-components/loading-states"}},
	{"try a request again after a temporary failure with growing delays", []string{"07-error-handling/retry-logic", "07-error-handling/resilience-patterns"}},
	{"cap how many requests one user can make per minute", []string{"11-validation/rate-limiting"}},
	{"only signed in users may open some pages", []string{"12-routing/protected-routes"}},
	{"permissions that depend on the user's role", []string{"03-auth-patterns/rbac-implementation"}},
	{"wait until the user stops typing before searching", []string{"09-hooks/use-debounce"}},
	{"load the next page of results while scrolling", []string{"06-data-fetching/pagination-patterns", "09-hooks/use-intersection-observer"}},
	{"small pop-up message that disappears after a few seconds", []string{"04-ui-components/toast-notifications", "09-hooks/use-toast"}},
	{"what to display when a list has nothing in it yet", []string{"04-ui-components/empty-states"}},
	{"wizard that splits a long form into several pages", []string{"05-form-patterns/multi-step-forms"}},
	{"check that an email address is well formed before sending the form", []string{"05-form-patterns/form-validation", "11-validation/client-validation", "10-utilities/validation-helpers"}},
	{"reach every control with tab and arrow keys", []string{"15-accessibility/keyboard-navigation"}},
	{"announce changes to blind users", []string{"15-accessibility/screen-reader", "15-accessibility/aria-patterns"}},
	{"show prices with a currency symbol and thousands separators", []string{"10-utilities/number-formatting"}},
	{"display relative times such as two hours ago", []string{"10-utilities/date-formatting"}},
	{"split the javascript so routes load lazily", []string{"14-performance/code-splitting", "14-performance/bundle-optimization"}},
	{"avoid re-rendering children when their props did not change", []string{"02-react-patterns/memo-optimization", "14-performance/render-optimization"}},
	{"serve smaller pictures to phones", []string{"14-performance/image-optimization"}},
	{"contain a crash in one part of the page so the rest keeps working", []string{"02-react-patterns/error-boundaries", "07-error-handling/error-boundaries"}},
	{"friendly wording when something goes wrong", []string{"07-error-handling/error-messages"}},
	{"send exceptions to a monitoring service", []string{"07-error-handling/error-logging"}},
	{"drive a real browser through the whole app like a user", []string{"08-testing-patterns/e2e-testing"}},
	{"test one function in isolation with mocks", []string{"08-testing-patterns/unit-testing"}},
	{"upload an image and show its progress", []string{"05-form-patterns/file-upload-forms", "01-convex-patterns/file-storage-patterns", "01-convex-patterns/convex-file-storage"}},
	{"change the database tables without losing existing rows", []string{"01-convex-patterns/migration-procedures"}},
	{"update the screen at once before the server confirms", []string{"01-convex-patterns/optimistic-mutation-pattern"}},
	{"push live updates to every open browser", []string{"01-convex-patterns/real-time-subscriptions"}},
	{"remember the user's choices after the tab is closed", []string{"09-hooks/use-local-storage", "13-state-management/state-persistence"}},
	{"share data across many components without passing props down", []string{"13-state-management/context-patterns", "13-state-management/global-state"}},
	{"make sure users are old enough", []string{"03-auth-patterns/age-verification"}},
	{"features only paying customers may use", []string{"03-auth-patterns/subscription-enforcement", "09-hooks/use-tier-gates", "09-hooks/use-freemium", "03-auth-patterns/subscription-service", "09-hooks/use-subscription"}},
	{"adapt the layout to narrow screens", []string{"09-hooks/use-media-query"}},
	{"keep spending on language model calls within a budget", []string{"06-cost-protection/nova26-cost-protection"}},
	{"steps to go through before shipping a new version", []string{"16-deployment/release-checklist"}},
	{"environment variables for production and staging", []string{"16-deployment/deployment-config"}},
	{"reuse earlier responses so repeated requests are quick", []string{"06-data-fetching/caching-strategies"}},
	{"describe input shapes with a typed schema library", []string{"11-validation/schema-validation", "11-validation/convex-validators"}},
	{"swipe left or right on touch screens", []string{"09-hooks/use-swipe-gesture"}},
	{"stop bots at sign up with a captcha", []string{"09-hooks/use-auth-with-recaptcha"}},
}

// Quality is the retrieval quality of an engine over Paraphrases.
type Quality struct {
	// RecallAt5 is the mean over queries of the share of relevant files among
	// the first five results.
	RecallAt5 float64
	// MRR is the mean reciprocal rank of the first relevant result (0 when
	// none is returned).
	MRR float64
}

// Score evaluates an engine: search returns the source paths of its results,
// best first (one per hit; duplicates of a file count once).
func Score(search func(query string) []string) Quality {
	var q Quality
	for _, p := range Paraphrases {
		got := search(p.Query)
		seen := map[string]bool{}
		found, first := 0, 0
		rank := 0
		for _, src := range got {
			src = strings.TrimSuffix(src, ".md")
			if seen[src] {
				continue
			}
			seen[src] = true
			rank++
			for _, r := range p.Relevant {
				if src == r {
					if rank <= 5 {
						found++
					}
					if first == 0 {
						first = rank
					}
				}
			}
		}
		q.RecallAt5 += float64(found) / float64(len(p.Relevant))
		if first > 0 {
			q.MRR += 1 / float64(first)
		}
	}
	q.RecallAt5 /= float64(len(Paraphrases))
	q.MRR /= float64(len(Paraphrases))
	return q
}
