package io.github.trtrace.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/** A servlet application's error answers and asynchronous handlers, over loopback. */
@SpringBootTest(
    classes = ReviewServletTest.App.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "spring.main.web-application-type=servlet")
class ReviewServletTest {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(App.Handlers.class)
  static class App {
    @RestController
    static class Handlers {
      @GetMapping("/throws")
      String throwsUnhandled() {
        throw new IllegalStateException("engine failed");
      }

      @GetMapping("/bad")
      String bad() {
        throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "bad prompt");
      }

      /** Spring MVC runs the Callable on its task executor, still within the request. */
      @GetMapping("/callable")
      Callable<String> callable() {
        return () -> String.valueOf(MDC.get("request_id"));
      }
    }
  }

  @Autowired Environment env;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private HttpResponse<String> get(String path, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + env.getProperty("local.server.port") + path)).timeout(Duration.ofSeconds(20));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void anUnhandledExceptionIsAnswered500WithTheCallersId() throws Exception {
    HttpResponse<String> r = get("/throws", "X-Request-ID", "srv-err-1");
    assertThat(r.statusCode()).isEqualTo(500);
    assertThat(r.headers().allValues("X-Request-ID")).containsExactly("srv-err-1");
  }

  @Test
  void aResponseStatusExceptionIsAnswered400WithTheCallersId() throws Exception {
    HttpResponse<String> r = get("/bad", "X-Request-ID", "srv-err-2");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.headers().allValues("X-Request-ID")).containsExactly("srv-err-2");
  }

  @Test
  void aCallableHandlerSeesTheRequestIdInTheMdc() throws Exception {
    HttpResponse<String> r = get("/callable", "X-Request-ID", "srv-callable-1");
    assertThat(r.headers().allValues("X-Request-ID")).containsExactly("srv-callable-1");
    assertThat(r.body()).isEqualTo("srv-callable-1");
  }

  @Test
  void twoCallerIdsAreAmbiguousAndReplaced() throws Exception {
    HttpResponse<String> r = get("/callable", "X-Request-ID", "srv-a", "X-Request-ID", "srv-b");
    assertThat(r.headers().allValues("X-Request-ID")).singleElement().asString().startsWith("req-");
  }
}
