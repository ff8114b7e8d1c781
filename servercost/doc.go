// Package servercost is the server-cost study: the time and peak memory
// of the server's similarity step of FedAux (the APVs' cosine and
// softmax), FED-PUB (functional embeddings of a proxy graph) and GCFL
// (the update cosines and a min cut), on the uploads of real cora-10
// engines and on stand-in uploads of ogbn-arxiv-10's shapes
// (docs/method.md#server-cost).
//
// It has the shape of every study package: Options, Run (returns a
// Result and, with Options.Out, writes server-cost.md and a figure) and
// Render (the Result as Markdown). Unlike the others it keeps no results
// file: timings are the machine's, so a study is measured again, not
// resumed. The steps themselves (sim.ServerStep) are the engine's code.
package servercost
