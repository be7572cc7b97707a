package docs;

import io.github.trtrace.core.InferenceTracer;
import java.nio.file.Path;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.tensorrt.nvinfer.ICudaEngine;
import org.slf4j.Logger;

/**
 * What the Java blocks of the README and docs/ use without declaring it: the reader's own objects (the request, the
 * tokenizer, the engine, ...) and objects an earlier block made. Each block is compiled on its own as the body
 * of a method of a subclass of this class ({@code void snippet() throws Exception}), or as its members when the
 * block declares methods; so a block sees these names, and the types of its own {@code import} lines.
 *
 * <p>Add a name here when a block needs one; keep the types the reader's (stubs), except for objects
 * a block takes from an earlier block, which have the SDK's real types.
 */
abstract class Prelude {

  // --- the reader's application

  /** The incoming HTTP request. */
  Request request;

  /** The HTTP response being written. */
  Response response;

  /** The raw input text of the request. */
  String prompt;

  /** The input token IDs. */
  int[] ids;

  /** The reader's tokenizer. */
  Tokenizer tokenizer;

  /** The reader's inference engine (not TensorRT's). */
  Engine engine;

  /** The reader's executor for streamed answers. */
  java.util.concurrent.Executor executor;

  /** A logger of the reader's for build logs. */
  Logger auditLog;

  /** The application's JDK HTTP server. */
  com.sun.net.httpserver.HttpServer server;

  /** Admission control: free places in the service's queue. */
  java.util.concurrent.Semaphore places;

  /** The host's OpenTelemetry (its SDK, set up by the application). */
  io.opentelemetry.api.OpenTelemetry openTelemetry;

  /** The incoming request's headers, as an HTTP server hands them over. */
  java.util.Map<String, java.util.List<String>> headersMap;

  /** The application's request handler behind the filter. */
  abstract void serve(com.sun.net.httpserver.HttpExchange exchange, io.github.trtrace.core.InferenceTrace trace)
      throws java.io.IOException;

  /** The application's inference for one traced request. */
  abstract void serve(io.github.trtrace.core.InferenceTrace trace);

  /** Whether decoding produced another token. */
  abstract boolean next();

  // --- objects from earlier blocks or the reader's TensorRT set-up

  /** The tracer the Quickstart builds. */
  InferenceTracer tracer;

  /** A deserialized TensorRT engine. */
  ICudaEngine cudaEngine;

  /** Device memory of the input tensor. */
  Pointer inputPtr;

  /** The build report of the baseline engine. */
  Path baselinePath;

  interface Request {
    String header(String name);

    /** As a servlet request names it. */
    String getHeader(String name);
  }

  interface Response {
    void setHeader(String name, String value);
  }

  interface Tokenizer {
    int[] encode(String text);
  }

  interface Engine {
    void run(int[] ids);

    /** Generates text from the input IDs, calling {@code onToken} once per generated token. */
    String generate(int[] ids, Runnable onToken);

    /** Generates the whole answer to {@code prompt} within {@code trace}. */
    String generate(io.github.trtrace.core.InferenceTrace trace, String prompt);

    /** The answer to {@code prompt}, token by token. */
    java.util.List<String> tokens(String prompt);
  }
}
