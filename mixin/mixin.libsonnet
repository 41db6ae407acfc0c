// netif_rx_exporter's monitoring mixin: prometheusAlerts (the alerting rules with the recording
// rules they use) and grafanaDashboards, both driven by _config (config.libsonnet).
(import 'config.libsonnet') +
(import 'alerts/alerts.libsonnet') +
(import 'dashboards/dashboards.libsonnet')
