package io.github.trtrace.examples.demo;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.Stage;
import java.util.function.Consumer;

/**
 * The demo's CPU model for the other examples (the Spring Boot sample): text in, the answer's pieces out, one
 * request at a time per calling thread, with the stages the demo service records (tokenizing under
 * {@code PREPROCESS}, prefill under {@code INFER}, the decode loop under {@code DECODE}).
 *
 * <pre>{@code
 * DemoModel model = DemoModel.cpu();
 * int tokens = model.generate(trace, "Why is the sky blue?", 64, piece -> out.write(piece));
 * }</pre>
 */
public final class DemoModel implements AutoCloseable {
  private final Backend backend;

  private DemoModel(Backend backend) {
    this.backend = backend;
  }

  /** The CPU backend ({@link CpuBackend}); several threads may generate at once. */
  public static DemoModel cpu() {
    return new DemoModel(new CpuBackend(Tokenizer.standard()));
  }

  /** The model name written to records. */
  public String name() {
    return backend.modelName();
  }

  /**
   * Generates up to {@code maxTokens} tokens after {@code prompt}, handing each token's text to {@code onText}
   * before the token is marked on {@code trace} ({@code trace.token()}): a caller that writes the piece to
   * its client in {@code onText} has {@code ttft_ms} and {@code tpot_ms} taken when the piece was written. Sets
   * the trace's input, input token count and maximum; returns the number of tokens generated (fewer than
   * {@code maxTokens} when the model stopped). An exception thrown by {@code onText} ends the generation.
   *
   * @throws IllegalArgumentException if the prompt and {@code maxTokens} exceed the model's context
   */
  public int generate(InferenceTrace trace, String prompt, int maxTokens, Consumer<String> onText) {
    trace.input(prompt).maxTokens(maxTokens);
    Tokenizer.Session session = backend.tokenizer().session();
    int[] ids = trace.callStage(Stage.PREPROCESS, () -> session.encode(prompt));
    trace.inputTokens(ids.length);
    check(ids.length, maxTokens);
    return backend.generate(trace, ids, maxTokens, id -> onText.accept(session.decode(id))).length;
  }

  /**
   * Checks, before any trace starts, that {@code prompt} and {@code maxTokens} fit the model's context.
   *
   * @throws IllegalArgumentException if they do not ({@code context_length_exceeded: ...})
   */
  public void checkContext(String prompt, int maxTokens) {
    check(tokens(prompt), maxTokens);
  }

  private void check(int promptTokens, int maxTokens) {
    if (promptTokens + maxTokens > backend.maxContext()) {
      throw new IllegalArgumentException("context_length_exceeded: " + promptTokens + " prompt tokens + "
          + maxTokens + " > " + backend.maxContext());
    }
  }

  /** The number of tokens {@code text} encodes to. */
  public int tokens(String text) {
    return backend.tokenizer().session().encode(text).length;
  }

  @Override
  public void close() {
    backend.close();
  }
}
