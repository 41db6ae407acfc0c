// Everything a user of the mixin may change. The defaults render exactly the files shipped in
// dashboards/ and rules/ (make mixin; tests/fleet/check-mixin.sh keeps them in step).
{
  _config+:: {
    // Selects the exporter's series in every alert and recording rule.
    netifRxSelector: 'job="netif-rx-exporter"',

    // Name of the label that tells clusters apart (the dashboards' hidden cluster_label
    // constant, which the cluster variable and every query use).
    clusterLabel: 'cluster',
    // Extra matchers, comma-separated, for the dashboards' cluster, job, instance and device
    // variables (which then limit every panel). Empty: every job exposing the exporter's series.
    netifRxDashboardSelector: '',
    // Extra matchers for the overview's node_exporter job variable (e.g. 'job="node"').
    nodeExporterSelector: '',

    // runbook_url of every alert: %s is the alert's name in lower case, the anchor of its section
    // of docs/runbook.md. The shipped base is a reserved example domain: publish the runbook and
    // point this at it.
    runbookURLPattern: 'https://netif-rx-exporter.example/docs/runbook.md#%s',

    // Values of the threshold recording rules netif_rx_exporter:<what>:threshold.
    thresholds: {
      // Share of the node's CPU capacity the probe may use (NetifRxProbeOverheadHigh).
      probeCpuShare: 0.01,
      // Share of a device's packets on its busiest CPU (NetifRxDeviceCpuImbalance).
      deviceBusiestCpuShare: 0.9,
      // Packets per second above which a device counts as busy (NetifRxDeviceCpuImbalance).
      deviceBusyPackets: 50000,
      // Backlog drops per second on one CPU above which NetifRxBacklogDrops fires.
      backlogDrops: 1,
      // Budget-exhausted NAPI polls per second of one device on one CPU above which
      // NetifRxNapiBudgetExhausted fires.
      napiBudgetExhausted: 100,
    },
  },
}
