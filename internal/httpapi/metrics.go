package httpapi

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/frontdesk/frontdesk/internal/db"
	"github.com/frontdesk/frontdesk/internal/jobs"
)

// metrics are the server's Prometheus series. Routes are labelled by their
// pattern, never by raw path, so cardinality stays bounded.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	rows     *prometheus.CounterVec
	batch    *prometheus.HistogramVec
}

func newMetrics(reg *prometheus.Registry, store *db.DB) *metrics {
	m := &metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "frontdesk_http_requests_total", Help: "HTTP requests by route, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "frontdesk_http_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"route"}),
		rows: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "frontdesk_batch_rows_total", Help: "Batch rows processed by endpoint and row status.",
		}, []string{"endpoint", "status"}),
		batch: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "frontdesk_batch_size_rows", Help: "Rows per batch request.",
			Buckets: []float64{1, 10, 50, 100, 250, 500},
		}, []string{"endpoint"}),
	}
	reg.MustRegister(m.requests, m.latency, m.rows, m.batch)
	if store != nil {
		reg.MustRegister(collectors.NewDBStatsCollector(store.SQL(), string(store.Engine())))
		reg.MustRegister(&queueCollector{store: store,
			pending: prometheus.NewDesc("frontdesk_jobs_pending", "Jobs waiting to run or running.", nil, nil),
			failed:  prometheus.NewDesc("frontdesk_jobs_failed", "Jobs that gave up after their last attempt.", nil, nil)})
	}
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) observe(method, route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

// batchRows records a batch's size and its rows by status.
func (m *metrics) batchRows(endpoint string, size int, byStatus map[string]int) {
	m.batch.WithLabelValues(endpoint).Observe(float64(size))
	for status, n := range byStatus {
		m.rows.WithLabelValues(endpoint, status).Add(float64(n))
	}
}

// handler serves the metrics; with a token, only to "Authorization: Bearer
// <token>" (compared in constant time), else 401.
func (m *metrics) handler(token string) http.Handler {
	h := promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
	if token == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := bearer(r)
		if !ok || subtle.ConstantTimeCompare([]byte(key), []byte(token)) != 1 {
			unauthorized(w, msgUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// queueCollector reads the job queue's depth at scrape time.
type queueCollector struct {
	store           *db.DB
	pending, failed *prometheus.Desc
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.pending; ch <- c.failed }

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	pending, failed, err := jobs.Depth(ctx, c.store)
	if err != nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.pending, prometheus.GaugeValue, float64(pending))
	ch <- prometheus.MustNewConstMetric(c.failed, prometheus.GaugeValue, float64(failed))
}
