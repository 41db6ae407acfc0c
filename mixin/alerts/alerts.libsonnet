// The alerting and recording rules of rules/netif_rx_exporter.rules.yml, in one group: the alerts
// compare against the threshold recording rules, so both are evaluated together. Hidden fields
// (section::, comment::) only annotate the rendered rules file.

// A threshold as PromQL: integers exactly, fractions to 6 significant digits, strings as they are.
local number(v) = if std.isString(v) then v else if v == std.floor(v) then '%d' % v else '%g' % v;

{
  prometheusAlerts+:: {
    groups+: [
      {
        name: 'netif-rx-exporter',
        rules: [
          {
            section:: 'thresholds',
            comment:: |||
              Share of the node's CPU capacity (0.01 = 1%) that the probe may use before
              NetifRxProbeOverheadHigh fires.
            |||,
            record: 'netif_rx_exporter:probe_cpu_share:threshold',
            expr: 'vector(%s)' % number($._config.thresholds.probeCpuShare),
          },
          {
            comment:: |||
              Share of a device's packets handled by its busiest CPU above which the device counts as
              concentrated on one CPU (NetifRxDeviceCpuImbalance).
            |||,
            record: 'netif_rx_exporter:device_busiest_cpu_share:threshold',
            expr: 'vector(%s)' % number($._config.thresholds.deviceBusiestCpuShare),
          },
          {
            comment:: |||
              Packets per second above which a device counts as busy (NetifRxDeviceCpuImbalance).
            |||,
            record: 'netif_rx_exporter:device_busy_packets:threshold',
            expr: 'vector(%s)' % number($._config.thresholds.deviceBusyPackets),
          },
          {
            comment:: |||
              Packets per second dropped because one CPU's backlog queue was full (netdev_max_backlog)
              above which NetifRxBacklogDrops fires.
            |||,
            record: 'netif_rx_exporter:backlog_drops:threshold',
            expr: 'vector(%s)' % number($._config.thresholds.backlogDrops),
          },
          {
            comment:: |||
              NAPI polls per second of one device on one CPU that used their whole budget above which
              NetifRxNapiBudgetExhausted fires.
            |||,
            record: 'netif_rx_exporter:napi_budget_exhausted:threshold',
            expr: 'vector(%s)' % number($._config.thresholds.napiBudgetExhausted),
          },
          {
            section:: 'derived series',
            comment:: |||
              CPU cores that the probe consumes on a node. The kernel only counts run time while BPF
              statistics are enabled: with bpf_stats.mode=always the measured rate is exact; with
              mode=sampled it covers only the sampling windows, so the cost per run (which sampling
              measures well) is also multiplied by the runs since: one per skb (netif_rx_skbs_total,
              not packets: an aggregate is one run), plus the untracked packets (an upper bound of
              their skbs). The larger of the two estimates is kept.
            |||,
            record: 'instance:netif_rx_probe_cpu_cores:rate5m',
            expr: |||
              max by (job, instance) (
                  label_replace(
                    sum by (job, instance) (rate(netif_rx_bpf_run_time_seconds_total{%(netifRxSelector)s}[5m])),
                    "estimate", "measured", "", ""
                  )
                or
                  label_replace(
                      sum by (job, instance) (rate(netif_rx_bpf_run_time_seconds_total{%(netifRxSelector)s}[5m]))
                    /
                      sum by (job, instance) (rate(netif_rx_bpf_run_count_total{%(netifRxSelector)s}[5m]))
                    *
                      (
                          sum by (job, instance) (rate(netif_rx_skbs_total{%(netifRxSelector)s}[5m]))
                        +
                          sum by (job, instance) (rate(netif_rx_untracked_packets_total{%(netifRxSelector)s}[5m]))
                      ),
                    "estimate", "extrapolated", "", ""
                  )
              )
            ||| % $._config,
          },
          {
            comment:: |||
              The same as a share of the node's CPUs: netif_rx_exporter_cpus (exporters before it:
              the untracked counter's series, one per CPU with a cpu label, else 1, which makes the
              share a share of one CPU: stricter, never laxer).
            |||,
            record: 'instance:netif_rx_probe_cpu_share:ratio_rate5m',
            expr: |||
              instance:netif_rx_probe_cpu_cores:rate5m
              /
              (
                  max by (job, instance) (netif_rx_exporter_cpus{%(netifRxSelector)s})
                or
                  count by (job, instance) (netif_rx_untracked_packets_total{%(netifRxSelector)s})
              )
            ||| % $._config,
          },
          {
            comment:: |||
              Share of each device's packets processed on its busiest CPU, from the spread summary
              (the busiest CPU of each poll interval), which every device has, per CPU or not:
              1 when the traffic is pinned to one CPU, 1/k when spread evenly over k.
            |||,
            record: 'device:netif_rx_busiest_cpu_share:ratio_rate5m',
            expr: |||
              sum by (job, instance, netns, device) (rate(netif_rx_busiest_cpu_packets_total{%(netifRxSelector)s}[5m]))
              /
              sum by (job, instance, netns, device) (rate(netif_rx_packets_total{%(netifRxSelector)s}[5m]))
            ||| % $._config,
          },
          {
            comment:: |||
              How many CPUs carry each device's traffic: the inverse of the busiest CPU's share
              (k when spread evenly over k CPUs, 1 when pinned).
            |||,
            record: 'device:netif_rx_cpus_carrying:ratio_rate5m',
            expr: |||
              sum by (job, instance, netns, device) (rate(netif_rx_packets_total{%(netifRxSelector)s}[5m]))
              /
              sum by (job, instance, netns, device) (rate(netif_rx_busiest_cpu_packets_total{%(netifRxSelector)s}[5m]))
            ||| % $._config,
          },
          {
            section:: 'availability',
            alert: 'NetifRxExporterDown',
            expr: 'up{%(netifRxSelector)s} == 0' % $._config,
            'for': '5m',
            labels: { severity: 'warning' },
            annotations: {
              runbook_url: $._config.runbookURLPattern % std.asciiLower('NetifRxExporterDown'),
              summary: 'netif_rx_exporter on {{ $labels.instance }} is down.',
              description: 'Prometheus has failed to scrape {{ $labels.instance }} (job {{ $labels.job }}) for 5 minutes: the receive-path metrics of that node are missing, and the other alerts of this group cannot fire for it.',
            },
          },
          {
            alert: 'NetifRxExporterAbsent',
            expr: 'absent(up{%(netifRxSelector)s})' % $._config,
            'for': '15m',
            labels: { severity: 'warning' },
            annotations: {
              runbook_url: $._config.runbookURLPattern % std.asciiLower('NetifRxExporterAbsent'),
              summary: 'No netif_rx_exporter target is being scraped.',
              description: 'Prometheus has had no target with ' + $._config.netifRxSelector + ' for 15 minutes: the exporter is not deployed, its service discovery (ServiceMonitor, PodMonitor, scrape_config) does not select it, or the job has another name.',
            },
          },
          {
            alert: 'NetifRxProbeDetached',
            expr: 'netif_rx_exporter_probe_attached{%(netifRxSelector)s} == 0' % $._config,
            'for': '2m',
            labels: { severity: 'warning' },
            annotations: {
              runbook_url: $._config.runbookURLPattern % std.asciiLower('NetifRxProbeDetached'),
              summary: 'The eBPF probe of netif_rx_exporter on {{ $labels.instance }} is not attached.',
              description: 'The exporter on {{ $labels.instance }} is running but its probe on net:netif_receive_skb has not been attached for 2 minutes, so no packet is being counted. Its log says why (missing capabilities, no BTF, verifier rejection).',
            },
          },
          {
            alert: 'NetifRxPollStale',
            expr: |||
              (
                  timestamp(netif_rx_exporter_last_poll_timestamp_seconds{%(netifRxSelector)s})
                -
                  netif_rx_exporter_last_poll_timestamp_seconds{%(netifRxSelector)s}
              )
              > 30
            ||| % $._config,
            'for': '2m',
            labels: { severity: 'warning' },
            annotations: {
              runbook_url: $._config.runbookURLPattern % std.asciiLower('NetifRxPollStale'),
              summary: 'netif_rx_exporter on {{ $labels.instance }} serves stale counters.',
              description: "At scrape time the last successful read of the probe's maps on {{ $labels.instance }} was {{ $value | humanizeDuration }} old (more than 30s) for 2 minutes: the poller is stuck or failing, and the counters served do not move.",
            },
          },
          {
            alert: 'NetifRxConfigReloadFailed',
            expr: 'netif_rx_exporter_config_last_reload_successful{%(netifRxSelector)s} == 0' % $._config,
            'for': '5m',
            labels: { severity: 'warning' },
            annotations: {
              runbook_url: $._config.runbookURLPattern % std.asciiLower('NetifRxConfigReloadFailed'),
              summary: 'netif_rx_exporter on {{ $labels.instance }} failed to reload its configuration.',
              description: "The last configuration reload on {{ $labels.instance }} failed; the exporter keeps running with the previous configuration. The exporter's log names the file, line and key at fault.",
            },
          },
          {
            alert: 'NetifRxPollErrors',
            expr: |||
              sum by (job, instance, reason) (rate(netif_rx_exporter_poll_errors_total{%(netifRxSelector)s}[5m]))
              > 0
            ||| % $._config,
            'for': '15m',
            labels: { severity: 'warning' },
            annotations: {
              runbook_url: $._config.runbookURLPattern % std.asciiLower('NetifRxPollErrors'),
              summary: 'netif_rx_exporter on {{ $labels.instance }} keeps failing to read the probe ({{ $labels.reason }}).',
              description: '{{ $value | humanize }} poll errors per second (reason {{ $labels.reason }}) on {{ $labels.instance }} for 15 minutes: some devices may be missing or out of date.',
            },
          },
          {
            section:: 'completeness',
            alert: 'NetifRxPacketsUntracked',
            expr: |||
              sum by (job, instance) (rate(netif_rx_untracked_packets_total{%(netifRxSelector)s}[5m]))
              > 0
            ||| % $._config,
            'for': '10m',
            labels: { severity: 'warning' },
            annotations: {
              runbook_url: $._config.runbookURLPattern % std.asciiLower('NetifRxPacketsUntracked'),
              summary: "Packets on {{ $labels.instance }} are counted without a device because the probe's map is full.",
              description: "{{ $value | humanize }} packets per second on {{ $labels.instance }} went to netif_rx_untracked_packets_total for 10 minutes: the probe's device map has no room for new devices (max_devices). They are still counted, but not per device.",
            },
          },
          {
            alert: 'NetifRxDeviceMapNearlyFull',
            expr: |||
              (
                  netif_rx_bpf_map_entries{%(netifRxSelector)s, map="device_counters"}
                /
                  netif_rx_bpf_map_max_entries{%(netifRxSelector)s, map="device_counters"}
              )
              > 0.9
            ||| % $._config,
            'for': '30m',
            labels: { severity: 'warning' },
            annotations: {
              runbook_url: $._config.runbookURLPattern % std.asciiLower('NetifRxDeviceMapNearlyFull'),
              summary: "The probe's device map on {{ $labels.instance }} is {{ $value | humanizePercentage }} full.",
              description: 'The device map of the probe on {{ $labels.instance }} has been more than 90% full for 30 minutes. When it is full, new devices are counted only in netif_rx_untracked_packets_total. Raise max_devices before that happens.',
            },
          },
          {
            alert: 'NetifRxBpfRecursionMisses',
            expr: |||
              sum by (job, instance, program) (increase(netif_rx_bpf_recursion_misses_total{%(netifRxSelector)s}[15m]))
              > 0
            ||| % $._config,
            labels: { severity: 'info' },
            annotations: {
              runbook_url: $._config.runbookURLPattern % std.asciiLower('NetifRxBpfRecursionMisses'),
              summary: 'The probe on {{ $labels.instance }} skipped runs ({{ $labels.program }}).',
              description: 'The kernel skipped the program {{ $labels.program }} {{ $value | humanize }} times in 15 minutes on {{ $labels.instance }} because it was already running on that CPU; those packets were not counted.',
            },
          },
          {
            section:: 'cost',
            alert: 'NetifRxProbeOverheadHigh',
            expr: |||
              instance:netif_rx_probe_cpu_share:ratio_rate5m
              > on () group_left ()
              netif_rx_exporter:probe_cpu_share:threshold
            ||| % $._config,
            'for': '15m',
            labels: { severity: 'warning' },
            annotations: {
              runbook_url: $._config.runbookURLPattern % std.asciiLower('NetifRxProbeOverheadHigh'),
              summary: "The eBPF probe on {{ $labels.instance }} uses {{ $value | humanizePercentage }} of the node's CPU.",
              description: "The probe on {{ $labels.instance }} has used more than the configured share of the node's CPU capacity (netif_rx_exporter:probe_cpu_share:threshold) for 15 minutes, estimated from the kernel's BPF run-time statistics.",
            },
          },
          {
            alert: 'NetifRxBpfStatsUnavailable',
            expr: |||
              sum by (job, instance) (increase(netif_rx_bpf_run_count_total{%(netifRxSelector)s}[30m])) == 0
              and on (job, instance)
              (
                  sum by (job, instance) (increase(netif_rx_packets_total{%(netifRxSelector)s}[30m]))
                +
                  sum by (job, instance) (increase(netif_rx_untracked_packets_total{%(netifRxSelector)s}[30m]))
              )
              > 0
            ||| % $._config,
            'for': '30m',
            labels: { severity: 'info' },
            annotations: {
              runbook_url: $._config.runbookURLPattern % std.asciiLower('NetifRxBpfStatsUnavailable'),
              summary: "The probe's cost on {{ $labels.instance }} is not being measured.",
              description: "Packets flowed on {{ $labels.instance }} but the kernel's BPF run-time statistics did not move for at least 30 minutes: statistics are off (bpf_stats.mode=off) or could not be enabled (CAP_SYS_ADMIN missing). Packet counting is unaffected; only the probe's cost panels and NetifRxProbeOverheadHigh are blind.",
            },
          },
          {
            section:: 'traffic',
            alert: 'NetifRxDeviceCpuImbalance',
            expr: |||
              device:netif_rx_busiest_cpu_share:ratio_rate5m
              > on () group_left ()
              netif_rx_exporter:device_busiest_cpu_share:threshold
              and on (job, instance, netns, device)
              (
                  sum by (job, instance, netns, device) (rate(netif_rx_packets_total{%(netifRxSelector)s}[5m]))
                > on () group_left ()
                  netif_rx_exporter:device_busy_packets:threshold
              )
              and on (job, instance)
              max by (job, instance) (netif_rx_exporter_cpus{%(netifRxSelector)s}) > 1
            ||| % $._config,
            'for': '15m',
            labels: { severity: 'warning' },
            annotations: {
              runbook_url: $._config.runbookURLPattern % std.asciiLower('NetifRxDeviceCpuImbalance'),
              summary: '{{ $labels.device }} on {{ $labels.instance }}: {{ $value | humanizePercentage }} of its packets are processed on one CPU.',
              description: "For 15 minutes one CPU of {{ $labels.instance }} has processed more than the configured share (netif_rx_exporter:device_busiest_cpu_share:threshold) of the packets received by {{ $labels.device }} while it was busy (netif_rx_exporter:device_busy_packets:threshold). That CPU's softirq work limits the device's throughput: check RSS/RPS and IRQ affinity.",
            },
          },
          {
            alert: 'NetifRxBacklogDrops',
            expr: |||
              sum by (job, instance, cpu) (rate(netif_rx_backlog_drops_total{%(netifRxSelector)s}[5m]))
              > on () group_left ()
              netif_rx_exporter:backlog_drops:threshold
            ||| % $._config,
            'for': '15m',
            labels: { severity: 'warning' },
            annotations: {
              runbook_url: $._config.runbookURLPattern % std.asciiLower('NetifRxBacklogDrops'),
              summary: 'CPU {{ $labels.cpu }} of {{ $labels.instance }} drops {{ $value | humanize }} received packets per second: its backlog queue is full.',
              description: 'For 15 minutes CPU {{ $labels.cpu }} of {{ $labels.instance }} has dropped more received packets per second than netif_rx_exporter:backlog_drops:threshold because its backlog queue (net.core.netdev_max_backlog) was full (netif_rx_backlog_drops_total, reason CPU_BACKLOG). Packets handed to that CPU by RPS/RFS, veth or loopback arrive faster than its softirq processes them.',
            },
          },
          {
            alert: 'NetifRxNapiBudgetExhausted',
            expr: |||
              sum by (job, instance, netns, device, cpu) (rate(netif_rx_napi_budget_exhausted_total{%(netifRxSelector)s}[5m]))
              > on () group_left ()
              netif_rx_exporter:napi_budget_exhausted:threshold
            ||| % $._config,
            'for': '15m',
            labels: { severity: 'warning' },
            annotations: {
              runbook_url: $._config.runbookURLPattern % std.asciiLower('NetifRxNapiBudgetExhausted'),
              summary: '{{ $labels.device }} on CPU {{ $labels.cpu }} of {{ $labels.instance }}: {{ $value | humanize }} NAPI polls per second use their whole budget.',
              description: 'For 15 minutes the NAPI polls of {{ $labels.device }} on CPU {{ $labels.cpu }} of {{ $labels.instance }} have used their whole budget more often per second than netif_rx_exporter:napi_budget_exhausted:threshold (netif_rx_napi_budget_exhausted_total): packets wait for another round, and that CPU squeezes its softirq (softnet_stat time_squeeze). The device receives more than that CPU processes: spread its queues over more CPUs.',
            },
          },
        ],
      },
    ],
  },
}
