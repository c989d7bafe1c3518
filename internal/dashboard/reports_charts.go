package dashboard

// The reports' charts, drawn on the server as SVG with
// github.com/go-analyze/charts (pure Go, SVG output, no JavaScript in the
// browser) and inlined in the page as an image with its title; the table
// beside each chart holds the same numbers for screen readers.

import (
	"bytes"
	"html/template"

	"github.com/go-analyze/charts"
)

// chartData is one bar chart: a label and a value per bar.
type chartData struct {
	Title      string
	Labels     []string
	Values     []float64
	Horizontal bool
}

// svg draws the chart; no bars draw nothing.
func (c chartData) svg() (template.HTML, error) {
	if len(c.Values) == 0 {
		return "", nil
	}
	height := 280
	opts := []charts.OptionFunc{charts.SVGOutputOptionFunc(), charts.SeriesShowLabel(true)}
	var (
		p   *charts.Painter
		err error
	)
	if c.Horizontal {
		height = max(160, 40*len(c.Values)+60)
		opts = append(opts, charts.DimensionsOptionFunc(640, height), charts.YAxisLabelsOptionFunc(c.Labels))
		p, err = charts.HorizontalBarRender([][]float64{c.Values}, opts...)
	} else {
		opts = append(opts, charts.DimensionsOptionFunc(640, height), charts.XAxisLabelsOptionFunc(c.Labels))
		p, err = charts.BarRender([][]float64{c.Values}, opts...)
	}
	if err != nil {
		return "", err
	}
	b, err := p.Bytes()
	if err != nil {
		return "", err
	}
	// An image with a name: role="img", the title as its label and its
	// first child; the numbers are the table's.
	title := template.HTMLEscapeString(c.Title)
	b = bytes.Replace(b, []byte("<svg "), []byte(`<svg role="img" aria-label="`+title+`" class="chart" `), 1)
	if i := bytes.IndexByte(b, '>'); i > 0 {
		b = append(b[:i+1], append([]byte("<title>"+title+"</title>"), b[i+1:]...)...)
	}
	return template.HTML(b), nil // drawn by charts from numbers and escaped labels
}
