package dashboard

// The reports' charts, drawn on the server as SVG with
// github.com/go-analyze/charts (pure Go, SVG output, no JavaScript in the
// browser) and inlined in the page as an image with its title; the table
// beside each chart holds the same numbers for screen readers.

import (
	"bytes"
	"html/template"
	"slices"
	"strconv"

	"github.com/go-analyze/charts"
)

// chartData is one bar chart: a label and a value per bar (counts).
type chartData struct {
	Title  string
	Labels []string
	Values []float64
}

// countLabel writes a count without decimals.
func countLabel(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }

// svg draws the chart: vertical bars from 0, every label shown (small and
// slanted when there are many), each bar's count above it. No bars draw
// nothing.
func (c chartData) svg() (template.HTML, error) {
	if len(c.Values) == 0 {
		return "", nil
	}
	x := charts.XAxisOption{Labels: c.Labels, Unit: 1, LabelFontStyle: charts.NewFontStyleWithSize(11)}
	height := 300
	if len(c.Labels) > 3 {
		x.LabelRotation = charts.DegreesToRadians(-30)
		height = 340
	}
	// Whole steps on the value axis: counts have no halves.
	top := slices.Max(c.Values)
	y := charts.YAxisOption{Min: charts.Ptr(0.0), ValueFormatter: countLabel, LabelCount: int(min(top, 5)) + 1}
	if top < 5 {
		y.Max = charts.Ptr(max(top, 1))
		y.LabelCount = int(max(top, 1)) + 1
	}
	series := charts.NewSeriesListGeneric([][]float64{c.Values}, charts.ChartTypeBar)
	for i := range series {
		series[i].Label.Show = charts.Ptr(true)
		series[i].Label.ValueFormatter = countLabel
	}
	p, err := charts.Render(charts.ChartOption{
		OutputFormat: charts.ChartOutputSVG, Width: 640, Height: height,
		XAxis:          x,
		YAxis:          []charts.YAxisOption{y},
		SeriesList:     series,
		ValueFormatter: countLabel,
	})
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
