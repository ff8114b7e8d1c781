// Package similarity is the similarity study: for variants of a run (the
// signature that sets FedAux's weights, APV mixing, fixed or automatic
// alpha) and seeds, how well each similarity view of a round agrees with
// the ground truth (Pearson correlation) and recovers the true client
// groups (adjusted Rand index), run through the study layer so that an
// interrupted study resumes.
//
// Its shape: Options, Run, Load, Render and Result.WriteFiles, as every
// study (see package study); Result.Scores holds the scores.
package similarity
