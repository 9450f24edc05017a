package redisq

// MaxBatches is how many batches a Pipe has on the wire at once.
const MaxBatches = maxBatches

// Running is how many places on the wire p's batches hold.
func (p *Pipe) Running() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.running
}
