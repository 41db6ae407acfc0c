// One thread that runs every scrape's rendering, whichever HTTP worker serves
// the request. glibc's allocator keeps a small cache of freed blocks per
// thread: building an exposition allocates and frees hundreds of small strings
// and vectors, and with the front's many workers each rendering in turn, every
// worker's cache would end up holding some 20 KiB of them (5 MiB for 256
// workers, see docs/performance.md). Rendered here, only this thread's cache
// holds them; the workers only copy the finished text out.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <thread>

namespace netif_rx {

class RenderThread {
 public:
  RenderThread();
  ~RenderThread();  // finishes the queued jobs, then joins
  RenderThread(const RenderThread&) = delete;
  RenderThread& operator=(const RenderThread&) = delete;

  // Runs `render` on the render thread, one job at a time in arrival order,
  // and waits for its text; rethrows what `render` threw.
  std::string run(std::function<std::string()> render);

 private:
  void serve();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<std::string()>> jobs_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace netif_rx
