package io.github.trtrace.examples.chat;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The subset of OpenAI's chat completions format the sample speaks (request, answer, stream chunk, error). */
final class OpenAi {
  static final int DEFAULT_MAX_TOKENS = 64;
  static final int MAX_TOKENS = 1024;

  private OpenAi() {}

  /** A message of the conversation. */
  record Message(@Nullable String role, @Nullable String content) {}

  /** The request body; unknown fields (temperature, ...) are ignored. */
  record ChatRequest(
      @Nullable String model,
      @Nullable List<Message> messages,
      @JsonProperty("max_tokens") @Nullable Integer maxTokens,
      @Nullable Boolean stream) {

    boolean streamed() {
      return Boolean.TRUE.equals(stream);
    }

    List<Message> messagesOrEmpty() {
      return messages == null ? List.of() : messages;
    }

    /** The conversation as the model's prompt, one {@code role: content} line a message. */
    String prompt() {
      if (messagesOrEmpty().isEmpty()) {
        throw new IllegalArgumentException("messages: at least one message is required");
      }
      StringBuilder p = new StringBuilder();
      for (Message m : messagesOrEmpty()) {
        if (m == null || m.content() == null) {
          throw new IllegalArgumentException("messages: every message needs a content");
        }
        p.append(m.role() == null ? "user" : m.role()).append(": ").append(m.content()).append('\n');
      }
      return p.toString();
    }

    int maxTokensOrDefault() {
      int n = maxTokens == null ? DEFAULT_MAX_TOKENS : maxTokens;
      if (n < 1 || n > MAX_TOKENS) {
        throw new IllegalArgumentException("max_tokens: must be between 1 and " + MAX_TOKENS + ", was " + n);
      }
      return n;
    }
  }

  /** The whole answer ({@code chat.completion}). */
  static Map<String, Object> completion(String requestId, String model, String text, int promptTokens,
      int completionTokens, String finishReason) {
    Map<String, Object> m = head("chatcmpl-" + requestId, "chat.completion", System.currentTimeMillis() / 1000,
        model);
    m.put("choices", List.of(Map.of("index", 0, "message", Map.of("role", "assistant", "content", text),
        "finish_reason", finishReason)));
    m.put("usage", Map.of("prompt_tokens", promptTokens, "completion_tokens", completionTokens,
        "total_tokens", promptTokens + completionTokens));
    return m;
  }

  /** One piece of a streamed answer ({@code chat.completion.chunk}); the last has no content and a reason. */
  static Map<String, Object> chunk(String id, long created, String model, @Nullable String content,
      @Nullable String finishReason) {
    Map<String, Object> choice = new LinkedHashMap<>();
    choice.put("index", 0);
    choice.put("delta", content == null ? Map.of() : Map.of("content", content));
    choice.put("finish_reason", finishReason);
    Map<String, Object> m = head(id, "chat.completion.chunk", created, model);
    m.put("choices", List.of(choice));
    return m;
  }

  /** OpenAI's error object. */
  static Map<String, Object> error(@Nullable String message, String code) {
    return Map.of("error", Map.of("message", message == null ? code : message, "type", "invalid_request_error",
        "code", code));
  }

  private static Map<String, Object> head(String id, String object, long created, String model) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", id);
    m.put("object", object);
    m.put("created", created);
    m.put("model", model);
    return m;
  }
}
