// The load client's HTTP: requests leave as built, replies are framed by
// Content-Length, chunks or the close, connections are kept alive and
// reopened after "Connection: close", and every network failure is an
// outcome with its kind, never a hang or an exception.
#include "inferlab/loadgen/http_client.h"

#include <gtest/gtest.h>

#include <chrono>

#include "inferlab/core/error.h"
#include "loadgen/raw_server.h"

namespace inferlab::loadgen {
namespace {

using inferlab::testing::RawServer;
using namespace std::chrono_literals;

std::string ok_reply(const std::string& body, const std::string& extra = "") {
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n" + extra + "\r\n" + body;
}

Url local(uint16_t port) { return Url::parse("http://127.0.0.1:" + std::to_string(port)); }

TEST(Url, ParsesHostPortAndPrefix) {
  const Url url = Url::parse("http://example.com:8000/base/");
  EXPECT_EQ(url.host, "example.com");
  EXPECT_EQ(url.port, 8000);
  EXPECT_EQ(url.prefix, "/base");
  EXPECT_EQ(Url::parse("localhost").port, 80);
  EXPECT_EQ(Url::parse("127.0.0.1:1234").port, 1234);
}

TEST(Url, RefusesOtherSchemesAndBadPorts) {
  EXPECT_THROW(Url::parse("https://host:8000"), Error);
  EXPECT_THROW(Url::parse("http://host:99999"), Error);
  EXPECT_THROW(Url::parse("http://host:x"), Error);
  EXPECT_THROW(Url::parse("http://:8000"), Error);
}

TEST(HttpConnection, SendsTheRequestAsBuiltAndKeepsTheConnection) {
  std::string seen;
  RawServer server([&](const std::string& request) {
    seen = request;
    return ok_reply(R"({"ok":true})");
  });
  const Url url = local(server.port());
  HttpConnection connection(url, 5s);
  const HttpRequestBytes request = make_http_request(
      "POST", url, "/v2/models/m/infer", "application/json", "X-Extra: 1\r\n", "{\"a\":1}");
  for (int i = 0; i < 5; ++i) {
    const HttpOutcome outcome = connection.exchange(request);
    EXPECT_EQ(outcome.status, 200);
    EXPECT_TRUE(outcome.failure.empty());
    EXPECT_EQ(connection.body(), R"({"ok":true})");
  }
  EXPECT_EQ(connection.connections_opened(), 1);
  EXPECT_EQ(server.connections(), 1);
  EXPECT_EQ(server.requests(), 5);
  EXPECT_EQ(seen, request.head + request.body);
  EXPECT_EQ(seen.rfind("POST /v2/models/m/infer HTTP/1.1\r\nHost: 127.0.0.1:", 0), 0u);
  EXPECT_NE(seen.find("Content-Length: 7\r\n"), std::string::npos);
  EXPECT_NE(seen.find("X-Extra: 1\r\n"), std::string::npos);
}

TEST(HttpConnection, ReconnectsAfterConnectionClose) {
  RawServer server([](const std::string&) { return ok_reply("{}", "Connection: close\r\n"); });
  const Url url = local(server.port());
  HttpConnection connection(url, 5s);
  const HttpRequestBytes request =
      make_http_request("POST", url, "/x", "application/json", "", "{}");
  for (int i = 0; i < 3; ++i) EXPECT_EQ(connection.exchange(request).status, 200);
  EXPECT_EQ(connection.connections_opened(), 3);
  EXPECT_EQ(server.connections(), 3);
}

TEST(HttpConnection, ReadsChunkedAndUnframedBodies) {
  int calls = 0;
  RawServer server([&](const std::string&) -> std::string {
    if (calls++ == 0)
      return "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
             "chunked\r\n\r\n4\r\nabcd\r\n3\r\nefg\r\n0\r\n\r\n";
    return "HTTP/1.0 201 Created\r\n\r\nto the end";
  });
  const Url url = local(server.port());
  HttpConnection connection(url, 5s);
  const HttpRequestBytes request = make_http_request("GET", url, "/", "", "", "");
  EXPECT_EQ(connection.exchange(request).status, 200);
  EXPECT_EQ(connection.body(), "abcdefg");
  EXPECT_EQ(connection.exchange(request).status, 201);
  EXPECT_EQ(connection.body(), "to the end");
  EXPECT_EQ(connection.connections_opened(), 1);
}

TEST(HttpConnection, NonSuccessStatusesAreNotFailuresOfTheTransport) {
  RawServer server([](const std::string&) {
    return std::string("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 2\r\n\r\n{}");
  });
  const Url url = local(server.port());
  HttpConnection connection(url, 5s);
  const HttpOutcome outcome =
      connection.exchange(make_http_request("POST", url, "/", "application/json", "", "{}"));
  EXPECT_EQ(outcome.status, 503);
  EXPECT_FALSE(outcome.ok());
  EXPECT_TRUE(outcome.failure.empty());
}

TEST(HttpConnection, TransportFailuresAreNamedOutcomes) {
  uint16_t closed_port = 0;
  {
    RawServer gone([](const std::string&) { return RawServer::kClose; });
    closed_port = gone.port();
  }
  HttpConnection refused(local(closed_port), 2s);
  const HttpRequestBytes get = make_http_request("GET", local(closed_port), "/", "", "", "");
  EXPECT_EQ(refused.exchange(get).failure, "connect");

  RawServer closing([](const std::string&) { return RawServer::kClose; });
  HttpConnection reset(local(closing.port()), 2s);
  EXPECT_EQ(reset.exchange(get).failure, "reset");

  RawServer silent([](const std::string&) { return RawServer::kSilent; });
  HttpConnection timeout(local(silent.port()), 200ms);
  EXPECT_EQ(timeout.exchange(get).failure, "timeout");

  RawServer garbage([](const std::string&) { return std::string("SSH-2.0\r\n\r\n"); });
  HttpConnection protocol(local(garbage.port()), 2s);
  EXPECT_EQ(protocol.exchange(get).failure, "protocol");
}

TEST(FetchOk, ReturnsTheBodyOrNamesTheStatus) {
  RawServer server([](const std::string& request) {
    if (request.rfind("GET /v2/models/m HTTP/1.1", 0) == 0) return ok_reply(R"({"name":"m"})");
    return std::string("HTTP/1.1 404 Not Found\r\nContent-Length: 13\r\n\r\n{\"error\":\"x\"}");
  });
  const Url url = local(server.port());
  EXPECT_EQ(fetch_ok(url, "/v2/models/m", 5s), R"({"name":"m"})");
  try {
    fetch_ok(url, "/v2/models/other", 5s);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("status 404"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace inferlab::loadgen
