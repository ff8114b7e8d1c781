// Package tui is fedaux's terminal console: it steps a federation round by
// round, shows per-client accuracy, the convergence of the mean accuracy
// and the client matrices live, and lets the user change the server
// temperature alpha (or auto alpha's partners) and the kernel bandwidth
// sigma between rounds, and the similarity source and apv-mix of the next
// engine.
//
// The heat map tells the truth about nearly equal similarities: it shows
// any matrix the engine computes (every signature's similarity, the mixing
// weights, the ground truth) on its raw scale, with the true minimum and
// maximum in its legend, unless its off-diagonal entries span less than
// 1 % of that scale: then it starts stretched over the off-diagonal range,
// and the legend says so ("auto"). z chooses a scale for good. The header
// shows how far the weights are from uniform.
//
// The root Model switches between the dashboard, the preset picker, the
// value prompts and the help screen, and forwards messages to one small
// model per component (header, bars, chart, heat map, prompt, picker).
// The engine's rounds run in tea.Cmds, never in Update.
package tui
