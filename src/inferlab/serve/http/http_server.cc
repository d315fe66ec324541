#include "inferlab/serve/http/http_server.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <pthread.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <mutex>
#include <new>
#include <optional>
#include <thread>

#include "inferlab/core/error.h"
#include "inferlab/serve/protocol/infer_response.h"

namespace inferlab::serve {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

std::string HttpRequest::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (beast::iequals(key, beast::string_view(name.data(), name.size()))) return value;
  }
  return {};
}

namespace {

constexpr char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
// Bodies from this size on are read whole, past Beast's parser.
constexpr uint64_t kDirectBodyBytes = 64 * 1024;
constexpr uintptr_t kBodyAlignment = 64;

HttpResponse error_response(int status, std::string_view message) {
  return HttpResponse{status, "application/json", {}, encode_error(message)};
}

// One connection: read a request, hand it over, write the answer, again
// while the client keeps the connection alive.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, const HttpHandler& handler, const HttpLimits& limits,
          const AccessLogger& access_logger, std::atomic<size_t>& open,
          std::atomic<size_t>& in_flight)
      : stream_(std::move(socket)),
        handler_(handler),
        limits_(limits),
        access_logger_(access_logger),
        open_(open),
        in_flight_(in_flight) {
    ++open_;
    beast::error_code error;
    const tcp::endpoint peer = stream_.socket().remote_endpoint(error);
    if (!error) remote_ = peer.address().to_string() + ":" + std::to_string(peer.port());
  }
  ~Session() { --open_; }

  void start() { read_header(); }
  net::any_io_executor executor() { return stream_.get_executor(); }

  // Refuses the connection at once (too many open).
  void refuse(HttpResponse response) {
    keep_alive_ = false;
    write(std::move(response));
  }

 private:
  void read_header() {
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(limits_.max_header_bytes));
    parser_->body_limit(limits_.max_body_bytes);
    stream_.expires_after(limits_.header_timeout);
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code error, size_t) { self->on_header(error); });
  }

  void on_header(beast::error_code error) {
    if (error) return fail_read(error);
    // curl sends "Expect: 100-continue" before a body over 1 MiB and then
    // waits a second for the go-ahead; without it every such request would
    // start a second late.
    if (beast::iequals(parser_->get()[http::field::expect], "100-continue")) {
      return net::async_write(stream_, net::buffer(kContinue, sizeof(kContinue) - 1),
                              [self = shared_from_this()](beast::error_code write_error, size_t) {
                                if (write_error) return self->close();
                                self->read_body();
                              });
    }
    read_body();
  }

  void read_body() {
    stream_.expires_after(limits_.body_timeout);
    const boost::optional<uint64_t> length = parser_->content_length();
    if (length && *length >= kDirectBodyBytes) return read_body_directly(*length);
    // Beast reads into the buffer's spare capacity (at least 512 bytes): a
    // buffer left at the headers' size reads a body half a kilobyte per
    // system call. Room for the body makes that one or a few.
    buffer_.reserve(std::max<size_t>(static_cast<size_t>(length.value_or(0)), 4096));
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code read_error, size_t) {
                       if (read_error) return self->fail_read(read_error);
                       auto message = std::make_shared<http::request<http::string_body>>(
                           self->parser_->release());
                       const std::string_view body = message->body();
                       self->dispatch(*message, body, message);
                     });
  }

  // A large body of known length skips the parser: Beast reads a body 64 KiB
  // per system call and copies it out of its buffer. Read it whole into
  // memory of its own instead (which decoded tensors may keep), ending on a
  // 64-byte boundary, and ask the kernel not to wake this connection before
  // the rest has arrived (SO_RCVLOWAT): a 600 KB tensor costs a couple of
  // wake-ups, not ten, and at saturation each wake-up preempts inference.
  void read_body_directly(uint64_t length) {
    const size_t body_bytes = static_cast<size_t>(length);
    try {
      body_memory_ = std::shared_ptr<char[]>(new char[body_bytes + kBodyAlignment]);
    } catch (const std::bad_alloc&) {
      discard_after_answer_ = true;
      return refuse(error_response(
          503, fmt::format("cannot allocate {} bytes for the request body", body_bytes)));
    }
    const auto end = reinterpret_cast<uintptr_t>(body_memory_.get()) + body_bytes;
    body_start_ = body_memory_.get() + (kBodyAlignment - end % kBodyAlignment) % kBodyAlignment;
    const size_t buffered = std::min(buffer_.size(), body_bytes);
    net::buffer_copy(net::buffer(body_start_, buffered), buffer_.data());
    buffer_.consume(buffered);
    read_rest_of_body(body_bytes, buffered);
  }

  void read_rest_of_body(size_t body_bytes, size_t received) {
    if (received == body_bytes) {
      const std::string_view body(body_start_, body_bytes);
      body_start_ = nullptr;
      return dispatch(parser_->get(), body, std::move(body_memory_));
    }
    // The mark counts bytes waiting in the socket, so it is set anew after
    // every partial read: left at the whole body, it would never be reached.
    set_receive_low_water(body_bytes - received);
    stream_.async_read_some(
        net::buffer(body_start_ + received, body_bytes - received),
        [self = shared_from_this(), body_bytes, received](beast::error_code error, size_t read) {
          if (error) {
            self->set_receive_low_water(1);
            self->body_memory_.reset();
            return self->fail_read(error);
          }
          if (received + read == body_bytes) self->set_receive_low_water(1);
          self->read_rest_of_body(body_bytes, received + read);
        });
  }

  // At most half the receive buffer (the kernel's own bound), so the
  // socket can always reach it; the body timeout still bounds the wait.
  void set_receive_low_water(size_t bytes) {
    const int fd = stream_.socket().native_handle();
    int low_water = 1;
    if (bytes > 1) {
      int receive_buffer = 0;
      socklen_t size = sizeof(receive_buffer);
      if (::getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, &size) != 0) return;
      low_water = static_cast<int>(
          std::clamp<size_t>(bytes, 1, static_cast<size_t>(std::max(receive_buffer / 2, 1))));
    }
    ::setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &low_water, sizeof(low_water));
  }

  // A request that could not be read: answered when the client can still
  // take an answer, else the connection just closes.
  void fail_read(beast::error_code error) {
    if (error == http::error::body_limit) {
      discard_after_answer_ = true;  // so the client reads the 413, not a reset
      return refuse(error_response(
          413, fmt::format("request body is larger than {} bytes", limits_.max_body_bytes)));
    }
    if (error == http::error::header_limit) {
      return refuse(error_response(
          431, fmt::format("request headers are larger than {} bytes", limits_.max_header_bytes)));
    }
    if (error == beast::error::timeout || error == http::error::end_of_stream ||
        error == net::error::operation_aborted || error == net::error::connection_reset ||
        error == net::error::eof) {
      return close();
    }
    refuse(error_response(400, "malformed HTTP request: " + error.message()));
  }

  // Hands a request read whole to the handler (its header: the parser's).
  void dispatch(const http::request_header<>& header, std::string_view body,
                std::shared_ptr<void> body_owner) {
    keep_alive_ = parser_->keep_alive();
    HttpRequest request;
    request.remote = remote_;
    request.method = std::string(header.method_string());
    request.target = std::string(header.target());
    for (const auto& field : header) {
      request.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    request.body = body;
    request.body_owner = std::move(body_owner);
    if (buffer_.capacity() > 64 * 1024) buffer_.shrink_to_fit();  // idle connections stay small
    stream_.expires_never();  // the handler may take its time (it has its own timeouts)
    auto self = shared_from_this();
    if (access_logger_) {
      record_ = AccessRecord{remote_, request.method, request.target, 0, 0, 0};
      request_done_ = std::chrono::steady_clock::now();
    }
    ++in_flight_;
    Responder respond([self](HttpResponse response) {
      net::post(self->stream_.get_executor(), [self, response = std::move(response)]() mutable {
        self->write(std::move(response), true);
      });
    });
    watch_for_close(respond);
    try {
      handler_(std::move(request), respond);
    } catch (const std::exception& caught) {
      respond(error_response(500, caught.what()));
    }
  }

  // While the handler works, a client that closes its connection cancels
  // the request (it leaves the queue). Readable with nothing to read is the
  // peer's end of stream; readable with data is a pipelined request, left
  // for the next read. The peek must not block: the reactor may report a
  // socket readable that is not (then the watch starts again), and a
  // blocking peek would hold this connection's thread, and its answer,
  // until the client sent more.
  void watch_for_close(Responder respond) {
    stream_.socket().async_wait(
        tcp::socket::wait_read, [self = shared_from_this(), respond](beast::error_code error) {
          if (respond.answered()) return;
          if (error) {
            if (error != net::error::operation_aborted) respond.cancel();
            return;
          }
          char byte = 0;
          const ssize_t peeked =
              ::recv(self->stream_.socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
          if (peeked > 0) return;  // a pipelined request: the client is there
          if (peeked < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            return self->watch_for_close(respond);
          }
          respond.cancel();  // end of stream, or the connection broke
        });
  }

  // `answer`: the handler's answer to a request (counted in flight until written).
  void write(HttpResponse response, bool answer = false) {
    auto message = std::make_shared<http::response<http::string_body>>();
    message->result(static_cast<unsigned>(response.status));
    message->version(11);
    message->set(http::field::server, "inferlab");
    message->set(http::field::content_type, response.content_type);
    for (const auto& [name, value] : response.headers) message->set(name, value);
    message->body() = std::move(response.body);
    message->keep_alive(keep_alive_);
    message->prepare_payload();
    if (access_logger_ && !record_.method.empty()) {
      record_.status = response.status;
      record_.response_bytes = message->body().size();
      record_.duration_ms = std::chrono::duration<double, std::milli>(
                                std::chrono::steady_clock::now() - request_done_)
                                .count();
      access_logger_(record_);
      record_.method.clear();
    }
    stream_.expires_after(limits_.body_timeout);
    http::async_write(
        stream_, *message,
        [self = shared_from_this(), message, answer](beast::error_code error, size_t) {
          if (answer) --self->in_flight_;
          self->on_write(error);
        });
  }

  void on_write(beast::error_code error) {
    if (!error && discard_after_answer_) return discard_rest();
    if (error || !keep_alive_) return close();
    read_header();
  }

  // After refusing an oversized body: stop sending, read what the client
  // still sends (for a bounded time) and drop it, so its socket is not
  // reset before it reads the answer.
  void discard_rest() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(limits_.body_timeout);
    discard_buffer_.resize(64 * 1024);
    stream_.async_read_some(net::buffer(discard_buffer_),
                            [self = shared_from_this()](beast::error_code error, size_t) {
                              if (error) return self->close();
                              self->discard_rest();
                            });
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  const HttpHandler& handler_;
  const HttpLimits& limits_;
  const AccessLogger& access_logger_;
  std::atomic<size_t>& open_;
  std::atomic<size_t>& in_flight_;
  std::string remote_;
  bool keep_alive_ = true;
  bool discard_after_answer_ = false;
  std::vector<char> discard_buffer_;
  std::shared_ptr<char[]> body_memory_;  // a body being read past the parser
  char* body_start_ = nullptr;           // where in body_memory_ it starts
  AccessRecord record_;
  std::chrono::steady_clock::time_point request_done_;
};

}  // namespace

// One io_context per thread, each connection on one of them (round robin):
// an answer posted from an instance thread wakes the thread that owns the
// connection, not whichever thread asio's shared scheduler hands it to, and
// the handoffs between io threads a shared context makes (measured: about
// twice the context switches per request at saturation) disappear.
struct HttpServer::Impl {
  Impl(HttpHandler handler_in, HttpLimits limits_in, AccessLogger access_logger_in, int threads)
      : handler(std::move(handler_in)),
        limits(limits_in),
        access_logger(std::move(access_logger_in)),
        contexts(make_contexts(threads)),
        acceptor(*contexts.front()) {
    for (const auto& context : contexts) keep_running.push_back(net::make_work_guard(*context));
  }

  static std::vector<std::unique_ptr<net::io_context>> make_contexts(int count) {
    std::vector<std::unique_ptr<net::io_context>> made;
    for (int i = 0; i < std::max(count, 1); ++i)
      made.push_back(std::make_unique<net::io_context>(1));
    return made;
  }

  void accept() {
    net::io_context& next = *contexts[accepted++ % contexts.size()];
    acceptor.async_accept(next, [this](beast::error_code error, tcp::socket socket) {
      if (error == net::error::operation_aborted || !acceptor.is_open()) return;
      if (!error) {
        auto session = std::make_shared<Session>(std::move(socket), handler, limits, access_logger,
                                                 open, in_flight);
        // Started on its own thread: everything a session does happens there.
        net::post(session->executor(), [this, session] {
          if (open.load() > limits.max_connections) {
            session->refuse(error_response(
                503, fmt::format("the server has {} connections open", limits.max_connections)));
          } else {
            session->start();
          }
        });
      }
      accept();
    });
  }

  // Sessions refer to these: they outlive the contexts, which destroy the
  // sessions still queued in them.
  HttpHandler handler;
  HttpLimits limits;
  AccessLogger access_logger;
  std::atomic<size_t> open{0};
  std::atomic<size_t> in_flight{0};
  std::vector<std::unique_ptr<net::io_context>> contexts;
  std::vector<net::executor_work_guard<net::io_context::executor_type>> keep_running;
  tcp::acceptor acceptor;
  size_t accepted = 0;  // on the acceptor's thread only
  uint16_t port = 0;
  std::vector<std::thread> threads;
  std::once_flag stopped;
};

HttpServer::HttpServer(const std::string& address, uint16_t port, HttpHandler handler,
                       HttpLimits limits, int io_threads, AccessLogger access_logger)
    : impl_(std::make_unique<Impl>(std::move(handler), limits, std::move(access_logger),
                                   io_threads)) {
  beast::error_code error;
  const tcp::endpoint endpoint(net::ip::make_address(address, error), port);
  if (error)
    fail(ErrorCode::kInvalidArgument, "cannot listen on '{}': {}", address, error.message());
  tcp::acceptor& acceptor = impl_->acceptor;
  acceptor.open(endpoint.protocol(), error);
  if (!error) acceptor.set_option(net::socket_base::reuse_address(true), error);
  if (!error) acceptor.bind(endpoint, error);
  if (!error) acceptor.listen(net::socket_base::max_listen_connections, error);
  if (error) {
    fail(ErrorCode::kUnavailable, "cannot listen on {}:{}: {}", address, port, error.message());
  }
  impl_->port = acceptor.local_endpoint().port();
  impl_->accept();
  for (const auto& context : impl_->contexts) {
    impl_->threads.emplace_back([context = context.get()] {
      pthread_setname_np(pthread_self(), "http io");
      context->run();
    });
  }
}

HttpServer::~HttpServer() { stop(); }

uint16_t HttpServer::port() const { return impl_->port; }

size_t HttpServer::open_connections() const { return impl_->open.load(); }

size_t HttpServer::requests_in_flight() const { return impl_->in_flight.load(); }

void HttpServer::stop_accepting() {
  net::post(impl_->acceptor.get_executor(), [impl = impl_.get()] {
    beast::error_code ignored;
    impl->acceptor.close(ignored);
  });
}

void HttpServer::stop() {
  std::call_once(impl_->stopped, [this] {
    for (const auto& context : impl_->contexts) context->stop();
    for (std::thread& thread : impl_->threads) thread.join();
  });
}

}  // namespace inferlab::serve
