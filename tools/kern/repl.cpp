// The kern REPL (`kern` or `kern repl`): a prompt around kern::Session. Line editing, history
// and completion come from libedit on a terminal; piped input is read line by line.
#include "tools/kern/repl.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <signal.h>
#include <string>
#include <unistd.h>

#include <editline/readline.h>

namespace {

// readline's completion callbacks take no context, so the session they complete from is here.
kern::Session *gSession = nullptr;
// Ctrl-C: stops the input being run (Session::interrupt); at the prompt, drops the line.
volatile sig_atomic_t gInterrupted = 0;

void onInterrupt(int) {
  gInterrupted = 1;
  if (gSession)
    gSession->interrupt();
}
std::vector<std::string> gMatches;

char *completionGenerator(const char *, int state) {
  static size_t next = 0;
  if (state == 0)
    next = 0;
  if (next >= gMatches.size())
    return nullptr;
  return strdup(gMatches[next++].c_str()); // readline frees it
}

char **complete(const char *text, int, int end) {
  rl_attempted_completion_over = 1; // no file-name completion after ours
  const std::string line(rl_line_buffer, std::min<size_t>(end, std::strlen(rl_line_buffer)));
  gMatches = gSession ? gSession->completions(text, line) : std::vector<std::string>{};
  // A directory is completed without the space after it: its files come next.
  rl_completion_append_character =
      gMatches.size() == 1 && !gMatches[0].empty() && gMatches[0].back() == '/' ? '\0' : ' ';
  return rl_completion_matches(text, completionGenerator);
}

std::string historyPath() {
  if (const char *p = std::getenv("KERN_HISTORY"); p && *p)
    return p;
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.kern_history";
  return "";
}

/// Reads one line: through libedit on a terminal, else plain getline. False at end of input.
enum class Read { Line, Interrupted, End };

/// Reads one line: through libedit on a terminal, else plain getline from `in`.
Read readLine(bool interactive, std::istream &in, const char *prompt, std::string &line) {
  gInterrupted = 0;
  if (!interactive)
    return std::getline(in, line) ? Read::Line : Read::End;
  char *raw = readline(prompt);
  if (gInterrupted) { // Ctrl-C at the prompt: the line typed so far is dropped
    std::free(raw);
    return Read::Interrupted;
  }
  if (!raw)
    return Read::End;
  line = raw;
  std::free(raw);
  return Read::Line;
}

} // namespace

int runRepl(const kern::Options &options, kern::Mode mode, const ReplScript &script) {
  std::ifstream file;
  if (!script.file.empty()) {
    file.open(script.file);
    if (!file) {
      std::fprintf(stderr, "kern: error: cannot open '%s': %s\n", script.file.c_str(),
                   std::strerror(errno));
      return static_cast<int>(kern::Status::UsageError);
    }
  }
  std::istream &in = script.file.empty() ? std::cin : file;
  const bool interactive = script.file.empty() && isatty(STDIN_FILENO) != 0;
  int firstError = 0; // a script's first error, kern::Status
  kern::Session session(options);
  session.setMode(mode);
  gSession = &session;
  const std::string history = historyPath();
  if (interactive) {
    // ':' starts a meta-command and '.' a member (`v.x` is completed as one word), so they
    // split no words; '>' does, so that after `p->` the member is the word.
    static char breaks[] = " \t\n\"\\'`@$<>=;|&{(,)}*+-/%[]!~^";
    rl_completer_word_break_characters = breaks;
    rl_attempted_completion_function = complete;
    if (!history.empty())
      read_history(history.c_str());
    std::printf("kern %s: CUDA kernels on the CPU. :help for help, :quit to leave.\n",
                KERN_VERSION_STRING);
    std::fflush(stdout);
  }
  if (interactive) {
    // No SA_RESTART: the prompt's read returns, and readline with it.
    struct sigaction sa = {};
    sa.sa_handler = onInterrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
  }
  std::string buffer, line;
  for (;;) {
    const char *prompt = buffer.empty() ? "kern> " : "  ... ";
    const Read got = readLine(interactive, in, prompt, line);
    if (got == Read::Interrupted) { // as a shell does: a new prompt, the definition cancelled
      std::printf("^C\n");
      std::fflush(stdout);
      buffer.clear();
      continue;
    }
    if (got == Read::End)
      break;
    if (buffer.empty() && line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    buffer += buffer.empty() ? line : "\n" + line;
    if (!kern::Session::isComplete(buffer))
      continue;
    if (interactive) {
      add_history(buffer.c_str());
      if (!history.empty())
        write_history(history.c_str());
    }
    kern::Session::EvalResult r = session.eval(buffer);
    buffer.clear();
    std::fflush(stdout);
    if (r.quit)
      break;
    if (!interactive && r.status != kern::Status::Ok && firstError == 0) {
      // A grader or CI must see a script's error in the exit code.
      firstError = static_cast<int>(r.status);
      if (!script.keepGoing) {
        std::fprintf(stderr, "kern: the script stops at its first error (--keep-going runs on)\n");
        break;
      }
    }
  }
  if (!buffer.empty()) {
    std::fprintf(stderr, "kern: end of input inside an unfinished definition or statement\n");
    return static_cast<int>(kern::Status::CompileError);
  }
  if (interactive) {
    if (!history.empty())
      history_truncate_file(history.c_str(), 1000);
    std::printf("\n");
  }
  if (interactive)
    signal(SIGINT, SIG_DFL);
  gSession = nullptr;
  return firstError;
}
