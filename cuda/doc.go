// Package cuda applies rein's token bitmasks to logits on an NVIDIA GPU, in
// place, on the engine's own device pointers and stream.
//
// Built with the cuda tag it launches a kernel through gorgonia.org/cu.
// Without the tag the same API returns ErrUnavailable, so one engine binary
// can serve hosts with and without a GPU. gorgonia.org/cu exits the process at
// start-up when no GPU is present: build with the tag for GPU hosts only.
package cuda
