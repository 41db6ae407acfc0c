#include "web/render_thread.h"

namespace netif_rx {

RenderThread::RenderThread() : thread_([this] { serve(); }) {}

RenderThread::~RenderThread() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

std::string RenderThread::run(std::function<std::string()> render) {
  std::packaged_task<std::string()> job(std::move(render));
  std::future<std::string> text = job.get_future();
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
  return text.get();
}

void RenderThread::serve() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stopping, nothing left
    std::packaged_task<std::string()> job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();  // an exception is stored in the job's future
    lock.lock();
  }
}

}  // namespace netif_rx
