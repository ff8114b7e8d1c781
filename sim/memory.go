package sim

import "fmt"

// bytesPerParam is the least memory a client's model takes per parameter:
// its value, its gradient and Adam's two moments, in float64.
const bytesPerParam = 32

// maxParams bounds one model's parameters whatever the machine: beyond it
// the arrays cannot be allocated at all.
const maxParams = 1 << 40

// checkModelMemory refuses settings whose clients' models cannot be held:
// hidden x features (the first layer), hidden^2 per further layer and
// hidden x classes (the head), times the clients and bytesPerParam, more
// than the machine's memory (when it is known) or than maxParams.
func checkModelMemory(cfg *Config, data *Data) error {
	f, h, c := float64(data.NumFeatures), float64(cfg.Hidden), float64(data.NumClasses)
	params := f*h + float64(cfg.layers()-1)*h*h + h*c
	need := float64(len(data.Clients)) * params * bytesPerParam
	total := float64(physicalMemory())
	if params <= maxParams && (total == 0 || need <= total) {
		return nil
	}
	what := fmt.Sprintf("%d features x hidden %d, %d layers, %d classes", data.NumFeatures, cfg.Hidden, cfg.layers(), data.NumClasses)
	if params > maxParams {
		return fmt.Errorf("sim: a client's model would have %.3g parameters (%s), more than the %.3g that can be allocated; lower hidden", params, what, float64(maxParams))
	}
	return fmt.Errorf("sim: the %d clients' models need at least %.1f GiB (%.3g parameters each: %s; %d bytes a parameter), more than this machine's %.1f GiB; lower hidden", len(data.Clients), need/(1<<30), params, what, bytesPerParam, total/(1<<30))
}
