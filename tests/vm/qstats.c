// Prints a network device's per-queue receive counters from the kernel's
// netdev netlink family (qstats-get, Linux 6.10 and later), in the form of
// `ethtool -S` lines:
//   rx_queue_N_packets: COUNT
//   rx_queue_N_bytes: COUNT
// From 6.10 on virtio-net reports its per-queue packets and bytes there
// instead of in `ethtool -S`; the virtio-net GRO guest test reads them with
// this. Exit status 1 with a line on stderr when the kernel has no such
// family or the device no such counters.
//   qstats DEVICE
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

// include/uapi/linux/netdev.h (6.10): not in every distribution's headers.
enum {
  kQstatsGet = 12,       // NETDEV_CMD_QSTATS_GET
  kQstatsIfindex = 1,    // NETDEV_A_QSTATS_IFINDEX
  kQstatsQueueType = 2,  // NETDEV_A_QSTATS_QUEUE_TYPE
  kQstatsQueueId = 3,    // NETDEV_A_QSTATS_QUEUE_ID
  kQstatsScope = 4,      // NETDEV_A_QSTATS_SCOPE
  kQstatsRxPackets = 8,  // NETDEV_A_QSTATS_RX_PACKETS
  kQstatsRxBytes = 9,    // NETDEV_A_QSTATS_RX_BYTES
  kQueueTypeRx = 0,      // NETDEV_QUEUE_TYPE_RX
  kScopeQueue = 1,       // NETDEV_QSTATS_SCOPE_QUEUE
};

static char buffer[1 << 16];

static void put_attr(struct nlmsghdr* message, uint16_t type, const void* data, uint16_t length) {
  struct nlattr* attr = (struct nlattr*)((char*)message + NLMSG_ALIGN(message->nlmsg_len));
  attr->nla_type = type;
  attr->nla_len = NLA_HDRLEN + length;
  memcpy((char*)attr + NLA_HDRLEN, data, length);
  message->nlmsg_len = NLMSG_ALIGN(message->nlmsg_len) + NLA_ALIGN(attr->nla_len);
}

static uint64_t uint_value(const struct nlattr* attr) {
  uint64_t value = 0;
  if (attr->nla_len - NLA_HDRLEN == 8) {
    memcpy(&value, (const char*)attr + NLA_HDRLEN, 8);
  } else {
    uint32_t small = 0;
    memcpy(&small, (const char*)attr + NLA_HDRLEN, 4);
    value = small;
  }
  return value;
}

static int send_request(int fd, uint16_t family, uint16_t flags, uint8_t command,
                        struct nlmsghdr* message) {
  message->nlmsg_type = family;
  message->nlmsg_flags = NLM_F_REQUEST | flags;
  message->nlmsg_seq = 1;
  struct genlmsghdr* genl = NLMSG_DATA(message);
  genl->cmd = command;
  genl->version = 1;
  return send(fd, message, message->nlmsg_len, 0) < 0 ? -1 : 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: qstats DEVICE\n");
    return 2;
  }
  uint32_t ifindex = if_nametoindex(argv[1]);
  if (ifindex == 0) {
    fprintf(stderr, "qstats: no device %s\n", argv[1]);
    return 1;
  }
  int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
  if (fd < 0) {
    perror("qstats: socket");
    return 1;
  }
  struct timeval timeout = {5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);

  // The netdev family's id.
  char request[256] = {0};
  struct nlmsghdr* message = (struct nlmsghdr*)request;
  message->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
  put_attr(message, CTRL_ATTR_FAMILY_NAME, "netdev", sizeof "netdev");
  if (send_request(fd, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, message) < 0) {
    perror("qstats: send");
    return 1;
  }
  ssize_t length = recv(fd, buffer, sizeof buffer, 0);
  uint16_t family = 0;
  struct nlmsghdr* reply = (struct nlmsghdr*)buffer;
  if (length > 0 && NLMSG_OK(reply, (size_t)length) && reply->nlmsg_type != NLMSG_ERROR) {
    struct nlattr* attr = (struct nlattr*)((char*)NLMSG_DATA(reply) + GENL_HDRLEN);
    int left = reply->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
    for (; left >= NLA_HDRLEN && attr->nla_len >= NLA_HDRLEN && attr->nla_len <= left;
         left -= NLA_ALIGN(attr->nla_len),
         attr = (struct nlattr*)((char*)attr + NLA_ALIGN(attr->nla_len))) {
      if ((attr->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID)
        memcpy(&family, (char*)attr + NLA_HDRLEN, 2);
    }
  }
  if (family == 0) {
    fprintf(stderr, "qstats: the kernel has no netdev netlink family\n");
    return 1;
  }

  // Per-queue statistics of the device (a dump).
  memset(request, 0, sizeof request);
  message->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
  uint32_t scope = kScopeQueue;
  put_attr(message, kQstatsIfindex, &ifindex, sizeof ifindex);
  put_attr(message, kQstatsScope, &scope, sizeof scope);
  if (send_request(fd, family, NLM_F_DUMP, kQstatsGet, message) < 0) {
    perror("qstats: send");
    return 1;
  }
  int printed = 0;
  for (int done = 0; !done;) {
    length = recv(fd, buffer, sizeof buffer, 0);
    if (length <= 0) {
      fprintf(stderr, "qstats: recv: %s\n", length < 0 ? strerror(errno) : "end of stream");
      return 1;
    }
    for (reply = (struct nlmsghdr*)buffer; NLMSG_OK(reply, (size_t)length);
         reply = NLMSG_NEXT(reply, length)) {
      if (reply->nlmsg_type == NLMSG_DONE) {
        done = 1;
        break;
      }
      if (reply->nlmsg_type == NLMSG_ERROR) {
        const struct nlmsgerr* error = NLMSG_DATA(reply);
        fprintf(stderr, "qstats: qstats-get: %s\n", strerror(-error->error));
        return 1;
      }
      int64_t type = -1, queue = -1, packets = -1, bytes = -1;
      struct nlattr* attr = (struct nlattr*)((char*)NLMSG_DATA(reply) + GENL_HDRLEN);
      int left = reply->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
      for (; left >= NLA_HDRLEN && attr->nla_len >= NLA_HDRLEN && attr->nla_len <= left;
           left -= NLA_ALIGN(attr->nla_len),
           attr = (struct nlattr*)((char*)attr + NLA_ALIGN(attr->nla_len))) {
        switch (attr->nla_type & NLA_TYPE_MASK) {
          case kQstatsQueueType:
            type = (int64_t)uint_value(attr);
            break;
          case kQstatsQueueId:
            queue = (int64_t)uint_value(attr);
            break;
          case kQstatsRxPackets:
            packets = (int64_t)uint_value(attr);
            break;
          case kQstatsRxBytes:
            bytes = (int64_t)uint_value(attr);
            break;
          default:
            break;
        }
      }
      if (type != kQueueTypeRx || queue < 0) continue;
      if (packets >= 0)
        printf("     rx_queue_%lld_packets: %lld\n", (long long)queue, (long long)packets);
      if (bytes >= 0)
        printf("     rx_queue_%lld_bytes: %lld\n", (long long)queue, (long long)bytes);
      printed += packets >= 0;
    }
  }
  close(fd);
  if (printed == 0) {
    fprintf(stderr, "qstats: %s reports no per-queue receive counters\n", argv[1]);
    return 1;
  }
  return 0;
}
