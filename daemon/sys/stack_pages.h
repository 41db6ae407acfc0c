// Giving back the stack pages a thread touched in a deep call and no longer
// uses. The HTTP front keeps many worker threads (docs/security.md, "Hostile
// clients"); each request takes one of them through civetweb's and the
// serializer's stack buffers, tens of KiB deep, and without this every worker
// that ever served would hold those pages for the life of the process.
#pragma once

namespace netif_rx {

// Tells the kernel that the calling thread's stack below the caller's frame
// (less a margin) holds nothing: the pages are dropped and read as zeros when
// touched again. Call it between requests, from a shallow frame. Does nothing
// where the stack's bounds cannot be learnt.
void release_stack_below_caller() noexcept;

}  // namespace netif_rx
