// config.json texts as the runtimes write them (shortened).
#pragma once

#include <string>

namespace netif_rx {

// containerd's CRI plugin: a pod sandbox (the pause container), compact JSON.
inline std::string containerd_sandbox(const std::string& netns_path) {
  return R"({"ociVersion":"1.1.0","process":{"args":["/pause"],"cwd":"/"},"root":{"path":"rootfs","readonly":true},)"
         R"("annotations":{"io.kubernetes.cri.container-type":"sandbox",)"
         R"("io.kubernetes.cri.sandbox-id":"4f1e",)"
         R"("io.kubernetes.cri.sandbox-name":"web-7d4b9c-x2x9z",)"
         R"("io.kubernetes.cri.sandbox-namespace":"shop",)"
         R"("io.kubernetes.cri.sandbox-uid":"0b2c3d4e-1111-4222-8333-944455566677"},)"
         R"("linux":{"resources":{"cpu":{"shares":2}},"cgroupsPath":"kubepods-besteffort-pod0b2c3d4e_1111_4222_8333_944455566677.slice:cri-containerd:4f1e",)"
         R"("namespaces":[{"type":"pid"},{"type":"ipc"},{"type":"uts"},{"type":"mount"},)"
         R"({"type":"network","path":")" +
         netns_path + R"("}]}})";
}

// CRI-O: a pod sandbox, indented with tabs.
inline std::string crio_sandbox(const std::string& netns_path) {
  return "{\n\t\"ociVersion\": \"1.0.2-dev\",\n\t\"annotations\": {\n"
         "\t\t\"io.kubernetes.cri-o.ContainerType\": \"sandbox\",\n"
         "\t\t\"io.kubernetes.cri-o.HostNetwork\": \"false\",\n"
         "\t\t\"io.kubernetes.pod.name\": \"api-0\",\n"
         "\t\t\"io.kubernetes.pod.namespace\": \"backend\",\n"
         "\t\t\"io.kubernetes.pod.uid\": \"66666666-2222-3333-4444-555555555555\"\n\t},\n"
         "\t\"linux\": {\n\t\t\"namespaces\": [\n"
         "\t\t\t{\n\t\t\t\t\"type\": \"network\",\n\t\t\t\t\"path\": \"" +
         netns_path + "\"\n\t\t\t},\n\t\t\t{\n\t\t\t\t\"type\": \"ipc\"\n\t\t\t}\n\t\t]\n\t}\n}\n";
}

// podman 4.3's bundles of a `podman kube play` pod: the infra container pins
// the namespace, the pod's container joins it through the infra's process
// and names it as its sandbox.
inline std::string podman_infra(const std::string& netns_path) {
  return R"({"ociVersion":"1.0.2-dev","annotations":{"io.container.manager":"libpod",)"
         R"("io.kubernetes.cri-o.Created":"2026-11-25T11:03:32.283860966Z",)"
         R"("io.podman.annotations.autoremove":"FALSE"},"hostname":"nrxown-web",)"
         R"("linux":{"namespaces":[{"type":"pid"},{"type":"network","path":")" +
         netns_path + R"("},{"type":"ipc"},{"type":"uts"},{"type":"mount"}]}})";
}
inline std::string podman_pod_container(const std::string& infra_id) {
  return R"({"annotations":{"io.container.manager":"libpod",)"
         R"("io.kubernetes.cri-o.ContainerType":"container",)"
         R"("io.kubernetes.cri-o.SandboxID":")" +
         infra_id +
         R"("},"linux":{"namespaces":[{"type":"pid"},)"
         R"({"type":"network","path":"/proc/28297/ns/net"},{"type":"mount"}]}})";
}
// containers/storage's index of podman's containers (containers.json).
inline std::string podman_container_index(const std::string& infra_id, const std::string& app_id) {
  return R"([{"id":")" + infra_id +
         R"(","names":["73138670f9d4-infra"],"image":"0406a3b7","layer":"a1",)"
         R"("metadata":"{\"image-name\":\"localhost/podman-pause:4.3.1-0\"}",)"
         R"("created":"2026-11-25T11:03:32.26Z","flags":{"MountLabel":""}},)"
         R"({"id":")" +
         app_id + R"(","names":["nrxown-web-app"],"image":"ffa409df","layer":"b2"}])";
}

// A container without Kubernetes annotations (ctr, nerdctl) in a given namespace.
inline std::string plain_container(const std::string& netns_path) {
  return R"({"annotations":{"org.opencontainers.image.ref.name":"x"},"linux":{"namespaces":)"
         R"([{"type":"network","path":")" +
         netns_path + R"("}]}})";
}

// A hostNetwork pod's sandbox: no network namespace of its own.
inline std::string host_network_sandbox() {
  return R"({"annotations":{"io.kubernetes.cri.container-type":"sandbox",)"
         R"("io.kubernetes.cri.sandbox-name":"kube-proxy-abcde",)"
         R"("io.kubernetes.cri.sandbox-namespace":"kube-system",)"
         R"("io.kubernetes.cri.sandbox-uid":"aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"},)"
         R"("linux":{"namespaces":[{"type":"pid"},{"type":"mount"}]}})";
}

}  // namespace netif_rx
