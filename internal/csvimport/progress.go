package csvimport

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Progress shows how far an import got. On a terminal it redraws one bar
// line in place (and keeps its clock moving while a batch is in flight);
// elsewhere (a CI log, a file) it prints one plain line per batch, so logs
// stay readable.
type Progress struct {
	w     io.Writer
	tty   bool
	total int
	now   func() time.Time

	mu      sync.Mutex
	start   time.Time
	done    int
	batches int
	drawn   bool
	stop    chan struct{}
	stopped chan struct{}
}

// NewProgress starts a display for total rows. w nil shows nothing.
func NewProgress(w io.Writer, tty bool, total int, now func() time.Time) *Progress {
	p := &Progress{w: w, tty: tty, total: total, now: now, start: now()}
	if w != nil && tty {
		p.stop, p.stopped = make(chan struct{}), make(chan struct{})
		go p.tick()
	}
	return p
}

func (p *Progress) tick() {
	defer close(p.stopped)
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.draw()
			p.mu.Unlock()
		}
	}
}

// Add records a finished batch of n rows.
func (p *Progress) Add(n int) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	p.batches++
	if p.tty {
		p.draw()
		return
	}
	fmt.Fprintf(p.w, "progress: %s/%s rows (%d%%), batch %d, %s rows/s, elapsed %s, ETA %s\n",
		Thousands(p.done), Thousands(p.total), p.percent(), p.batches, Thousands(int(p.rate()+0.5)),
		Duration(p.now().Sub(p.start)), p.eta())
}

// Note prints a message without garbling the bar.
func (p *Progress) Note(format string, args ...any) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	fmt.Fprintf(p.w, format+"\n", args...)
	if p.tty && p.drawn {
		p.draw()
	}
}

// Finish stops redrawing and ends the bar's line.
func (p *Progress) Finish() {
	if p.w == nil {
		return
	}
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
		p.stop = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.drawn {
		p.draw()
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

const barWidth = 30

// draw redraws the bar line; the caller holds mu.
func (p *Progress) draw() {
	filled := 0
	if p.total > 0 {
		filled = barWidth * p.done / p.total
	}
	bar := strings.Repeat("█", filled) + strings.Repeat("░", barWidth-filled)
	fmt.Fprintf(p.w, "\r%s %s/%s rows %3d%%  %s rows/s  ETA %s\x1b[K", bar, Thousands(p.done), Thousands(p.total),
		p.percent(), Thousands(int(p.rate()+0.5)), p.eta())
	p.drawn = true
}

func (p *Progress) percent() int {
	if p.total == 0 {
		return 100
	}
	return 100 * p.done / p.total
}

func (p *Progress) rate() float64 {
	el := p.now().Sub(p.start).Seconds()
	if el <= 0 || p.done == 0 {
		return 0
	}
	return float64(p.done) / el
}

func (p *Progress) eta() string {
	r := p.rate()
	if p.done >= p.total {
		return "0s"
	}
	if r == 0 {
		return "--"
	}
	return Duration(time.Duration(float64(p.total-p.done) / r * float64(time.Second)))
}

// Thousands writes n with "," between groups of three digits.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Duration rounds d for people: "850ms", "4.2s", "3m07s", "1h02m".
func Duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		d = d.Round(time.Minute)
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}
