package io.github.trtrace.examples.demo;

import java.util.List;

/** The demo's word vocabulary: everyday prompt words and a few non-ASCII ones (multi-byte in UTF-8). */
final class Words {
  static final List<String> VOCABULARY =
      List.of(
      "the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "with", "was", "on", "be", "by",
      "this", "are", "or", "at", "from", "have", "an", "not", "but", "which", "all", "they", "we", "you",
      "can", "will", "one", "has", "more", "their", "if", "about", "would", "there", "been", "other", "what",
      "so", "when", "who", "out", "up", "time", "into", "some", "could", "them", "than", "these", "only",
      "new", "then", "its", "also", "two", "first", "any", "may", "like", "over", "such", "how", "our",
      "most", "very", "after", "where", "just", "those", "well", "people", "because", "way", "many", "much",
      "even", "back", "good", "through", "should", "each", "between", "same", "use", "us", "make", "work",
      "long", "great", "under", "still", "life", "know", "high", "while", "last", "might", "world", "day",
      "year", "think", "another", "however", "part", "number", "system", "small", "since", "large", "find",
      "give", "take", "place", "every", "order", "point", "help", "set", "end", "case", "model", "token",
      "tokens", "request", "requests", "latency", "service", "queue", "batch", "engine", "layer", "memory",
      "cache", "compute", "input", "output", "answer", "question", "prompt", "context", "length",
      "inference", "server", "client", "network", "response", "error", "timeout", "summarise", "summary",
      "translate", "explain", "write", "classify", "rewrite", "describe", "list", "compare", "review",
      "report", "note", "meeting", "notes", "points", "bullet", "three", "five", "ten", "words", "sentence",
      "paragraph", "document", "text", "code", "function", "class", "data", "table", "chart", "value",
      "values", "result", "results", "test", "tests", "build", "release", "version", "change", "changes",
      "issue", "issues", "user", "users", "customer", "customers", "orders", "payment", "account", "support",
      "ticket", "tickets", "email", "message", "messages", "price", "cost", "plan", "team", "project",
      "week", "month", "today", "tomorrow", "yesterday", "morning", "evening", "night", "city", "country",
      "french", "german", "spanish", "english", "language", "languages", "quick", "brown", "fox", "jumps",
      "lazy", "dog", "red", "blue", "green", "light", "dark", "fast", "slow", "simple", "clear", "short",
      "careful", "precise", "helpful", "friendly", "formal", "informal", "tone", "style", "voice", "reader",
      "readers", "audience", "topic", "topics", "idea", "ideas", "example", "examples", "reason", "reasons",
      "step", "steps", "method", "approach", "problem", "problems", "solution", "solutions", "questions",
      "analysis", "design", "architecture", "graph", "train", "training", "weights", "matrix", "vector",
      "attention", "decoder", "encoder", "prefill", "decode", "sample", "sampling", "greedy", "please",
      "thanks", "hello", "story", "poem", "haiku", "song", "letter", "essay", "article", "title", "headline",
      "abstract", "draft", "final", "edit", "edits", "section", "sections", "chapter", "chapters", "book",
      "books", "page", "pages", "line", "lines", "file", "files", "river", "mountain", "ocean", "forest",
      "garden", "kitchen", "coffee", "tea", "bread", "water", "fire", "stone", "glass", "paper", "music",
      "art", "history", "science", "physics", "chemistry", "biology", "math", "economics", "law", "health",
      "medicine", "school", "student", "teacher", "café", "naïve", "résumé", "über", "façade", "jalapeño",
      "crème", "brûlée", "déjà", "vu", "smörgåsbord", "piñata", "coördinate", "fiancée", "señor", "→", "·",
      "€", "℃", "übung", "straße", "œuvre", "garçon", "mañana", "zürich");

  private Words() {}
}
