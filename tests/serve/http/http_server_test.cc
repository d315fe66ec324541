// The HTTP transport on loopback, port 0: requests reach the handler and
// answers come back (also from other threads, also to curl), connections
// are kept alive, and limits and timeouts answer or close instead of
// letting a client hold the server.
#include "inferlab/serve/http/http_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "serve/loopback_client.h"

namespace inferlab::serve {
namespace {

int count(const std::string& text, const std::string& part) {
  int found = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++found;
  return found;
}

void echo(HttpRequest request, Responder respond) {
  respond(
      {200,
       "application/json",
       {{"X-Target", request.target}},
       request.method + " " + std::string(request.body) + " " + request.header("content-length")});
}

TEST(HttpServer, AnswersOnAPortTheSystemChose) {
  HttpServer server("127.0.0.1", 0, echo);
  ASSERT_NE(server.port(), 0);
  Client client(server.port());
  ASSERT_TRUE(client.connected());
  client.send_all(post("/v2/models/m/infer", "{\"a\": 1}"));
  const std::string response = client.read_all();
  EXPECT_EQ(response.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << response;
  EXPECT_NE(response.find("Content-Type: application/json"), std::string::npos);
  EXPECT_NE(response.find("X-Target: /v2/models/m/infer"), std::string::npos);
  EXPECT_NE(response.find("\r\n\r\nPOST {\"a\": 1} 8"), std::string::npos) << response;
}

TEST(HttpServer, KeepsTheConnectionAliveBetweenRequests) {
  HttpServer server("127.0.0.1", 0, echo);
  Client client(server.port());
  client.send_all(post("/one", "1", false) + post("/two", "2", true));
  const std::string responses = client.read_all();
  EXPECT_EQ(count(responses, "HTTP/1.1 200 OK"), 2) << responses;
  EXPECT_NE(responses.find("POST 1 1"), std::string::npos);
  EXPECT_NE(responses.find("POST 2 1"), std::string::npos);
}

TEST(HttpServer, AnswersFromAnotherThreadAndOnlyOnce) {
  std::vector<std::thread> workers;
  std::mutex mutex;
  HttpServer server("127.0.0.1", 0, [&](HttpRequest request, Responder respond) {
    const std::lock_guard<std::mutex> lock(mutex);
    workers.emplace_back([respond, body = std::string(request.body)] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      respond({202, "text/plain", {}, "later " + body});
      respond({500, "text/plain", {}, "ignored"});
    });
  });
  Client client(server.port());
  client.send_all(post("/", "x"));
  const std::string response = client.read_all();
  EXPECT_EQ(response.rfind("HTTP/1.1 202 Accepted", 0), 0u) << response;
  EXPECT_NE(response.find("later x"), std::string::npos);
  EXPECT_EQ(response.find("ignored"), std::string::npos);
  for (std::thread& worker : workers) worker.join();
}

TEST(HttpServer, AHandlerThatThrowsBecomesA500WithAnErrorBody) {
  HttpServer server("127.0.0.1", 0,
                    [](HttpRequest, Responder) { throw std::runtime_error("handler broke"); });
  Client client(server.port());
  client.send_all(post("/", ""));
  const std::string response = client.read_all();
  EXPECT_EQ(response.rfind("HTTP/1.1 500", 0), 0u) << response;
  EXPECT_NE(response.find("{\"error\":\"handler broke\"}"), std::string::npos) << response;
}

TEST(HttpServer, OversizedAndMalformedRequestsGetTheirStatus) {
  HttpLimits limits;
  limits.max_body_bytes = 100;
  limits.max_header_bytes = 1024;
  HttpServer server("127.0.0.1", 0, echo, limits);
  {
    Client client(server.port());
    client.send_all(post("/", std::string(101, 'b')));
    const std::string response = client.read_all();
    EXPECT_EQ(response.rfind("HTTP/1.1 413", 0), 0u) << response;
    EXPECT_NE(response.find("larger than 100 bytes"), std::string::npos);
  }
  {
    Client client(server.port());
    client.send_all("GET / HTTP/1.1\r\nX-Big: " + std::string(2000, 'h') + "\r\n\r\n");
    EXPECT_EQ(client.read_all().rfind("HTTP/1.1 431", 0), 0u);
  }
  {
    Client client(server.port());
    client.send_all("NOT HTTP AT ALL\r\n\r\n");
    const std::string response = client.read_all();
    EXPECT_EQ(response.rfind("HTTP/1.1 400", 0), 0u) << response;
    EXPECT_NE(response.find("{\"error\":"), std::string::npos);
  }
  // The server still serves after all that.
  Client client(server.port());
  client.send_all(post("/", "ok"));
  EXPECT_EQ(client.read_all().rfind("HTTP/1.1 200", 0), 0u);
}

TEST(HttpServer, ASlowClientIsDisconnectedAtTheHeaderTimeout) {
  HttpLimits limits;
  limits.header_timeout = std::chrono::milliseconds(200);
  HttpServer server("127.0.0.1", 0, echo, limits);
  Client client(server.port());
  const auto start = std::chrono::steady_clock::now();
  client.send_all("POST / HTTP/1.1\r\nHost: x\r\n");  // and never the rest
  EXPECT_EQ(client.read_all(), "");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  for (int i = 0; i < 100 && server.open_connections() != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(server.open_connections(), 0u);
}

TEST(HttpServer, ConnectionsBeyondTheLimitGet503) {
  HttpLimits limits;
  limits.max_connections = 1;
  HttpServer server("127.0.0.1", 0, echo, limits);
  Client held(server.port());  // idle, holding the one allowed connection
  for (int i = 0; i < 100 && server.open_connections() != 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Client refused(server.port());
  refused.send_all(post("/", ""));
  const std::string response = refused.read_all();
  EXPECT_EQ(response.rfind("HTTP/1.1 503", 0), 0u) << response;
}

TEST(HttpServer, StopAcceptingKeepsOpenConnectionsServing) {
  HttpServer server("127.0.0.1", 0, echo);
  Client open(server.port());
  for (int i = 0; i < 100 && server.open_connections() != 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  server.stop_accepting();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  open.send_all(post("/", "still"));
  EXPECT_NE(open.read_all().find("POST still"), std::string::npos);
  Client late(server.port());
  EXPECT_FALSE(late.connected());
}

// curl sends "Expect: 100-continue" before a body over 1 MiB and waits a
// second for the go-ahead: the server gives it before reading the body.
TEST(HttpServer, AnswersExpectContinueBeforeTheBodyIsSent) {
  HttpServer server("127.0.0.1", 0, echo);
  Client client(server.port());
  client.send_all(
      "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n"
      "Connection: close\r\n\r\n");
  EXPECT_EQ(client.read_until("\r\n\r\n"), "HTTP/1.1 100 Continue\r\n\r\n");
  client.send_all("hello");
  const std::string response = client.read_all();
  EXPECT_EQ(response.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << response;
  EXPECT_NE(response.find("POST hello 5"), std::string::npos) << response;
}

// A large body (read past the parser, in pieces as the client sends it)
// arrives whole, ends on a 64-byte boundary so binary tensors at its end
// are aligned, stays alive as long as the handler holds its owner, and a
// request pipelined behind it is read next.
TEST(HttpServer, ReadsALargeBodyWholeEndingOnA64ByteBoundary) {
  std::string body(300 * 1000 + 3, 'x');
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>('a' + i % 26);
  std::mutex mutex;
  std::vector<std::string> bodies;
  std::vector<uintptr_t> ends;
  std::vector<std::shared_ptr<void>> owners;
  HttpServer server("127.0.0.1", 0, [&](HttpRequest request, Responder respond) {
    {
      std::lock_guard lock(mutex);
      bodies.emplace_back(request.body);
      ends.push_back(reinterpret_cast<uintptr_t>(request.body.data() + request.body.size()));
      owners.push_back(request.body_owner);
    }
    respond({200, "text/plain", {}, std::to_string(request.body.size())});
  });
  Client client(server.port());
  const std::string first = post("/big", body, false);
  const size_t piece = 40000;  // the client sends in pieces, pausing between them
  for (size_t at = 0; at < first.size(); at += piece) {
    client.send_all(first.substr(at, piece));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  client.send_all(post("/small", "tail"));
  const std::string responses = client.read_all();
  EXPECT_EQ(count(responses, "HTTP/1.1 200 OK"), 2) << responses.substr(0, 400);
  std::lock_guard lock(mutex);
  ASSERT_EQ(bodies.size(), 2u);
  EXPECT_TRUE(bodies[0] == body) << "the large body arrived changed, size " << bodies[0].size();
  EXPECT_EQ(ends[0] % 64, 0u);
  EXPECT_NE(owners[0], nullptr);
  EXPECT_EQ(bodies[1], "tail");
}

// A client that stops halfway through a large body and closes: the handler
// never sees the request and the server goes on serving.
TEST(HttpServer, ALargeBodyCutShortNeverReachesTheHandler) {
  std::atomic<int> handled{0};
  HttpServer server("127.0.0.1", 0, [&](HttpRequest request, Responder respond) {
    ++handled;
    respond({200, "text/plain", {}, std::string(request.body)});
  });
  {
    Client client(server.port());
    const std::string request = post("/big", std::string(200 * 1000, 'z'));
    client.send_all(request.substr(0, request.size() / 2));
  }
  Client next(server.port());
  next.send_all(post("/after", "ok"));
  EXPECT_NE(next.read_all().find("\r\n\r\nok"), std::string::npos);
  EXPECT_EQ(handled.load(), 1);
}

TEST(HttpServer, CurlTalksToIt) {
  HttpServer server("127.0.0.1", 0, echo);
  const std::string command =
      "curl -s -S --max-time 10 -X POST --data-binary hello "
      "http://127.0.0.1:" +
      std::to_string(server.port()) + "/path 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char chunk[256];
  while (size_t n = fread(chunk, 1, sizeof(chunk), pipe)) output.append(chunk, n);
  EXPECT_EQ(pclose(pipe), 0) << output;
  EXPECT_EQ(output, "POST hello 5");
}

}  // namespace
}  // namespace inferlab::serve
