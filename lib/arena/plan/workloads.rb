# frozen_string_literal: true

require "digest"
require "fileutils"
require_relative "../core"
require_relative "plan"

module Arena
  class Plan
    # A workload is one request shape and the rule that says a response to it is
    # right. The engine checks status and a body substring under load; Verify
    # checks the full rule once before load.
    #
    # headers: {name => value} sent with this workload's requests (beside the
    # plan's --header). mix: [[weight, Workload], ...] for a weighted mix of
    # requests, run as one workload through the engine's mix file; the mix's
    # own path, method and body are its first member's (what a settle probe
    # sends), and its members carry their expectations. samples: a member's
    # real paths (a requests file's paths:), which share its weight in the mix.
    # header_rule: lambda(response) -> nil when its headers are right, else
    # what is wrong. checks: more Workloads that Verify sends once before load
    # and never loads (a rule's edge cases: lib/arena/verify/tfb.rb's clamped counts).
    # pipeline: requests in flight per connection under load (HTTP/1.1
    # pipelining, the engine's -p), nil for one at a time.
    Workload = Struct.new(:name, :path, :method, :body, :content_type, :expect_status, :expect_body,
      :body_rule, :framing, :headers, :mix, :samples, :header_rule, :checks, :pipeline, keyword_init: true) do
      # body_rule: lambda(body, bind) -> nil when right, else what is wrong.
      def check_body(body, bind)
        return body_rule.call(body, bind) if body_rule
        return nil if expect_body.nil? || body.include?(expect_body)
        "body lacks #{expect_body.inspect}"
      end

      def mix? = !mix.nil?

      # The engine's mix file for this workload, written once into dir; nil
      # for a single request. One line a member: weight method path status [body substring].
      def mix_file(dir)
        return nil unless mix?
        Plan::Workload.own_file(dir, "mix", name, "# weight[:request] method path expected_status [expected body substring]\n#{mix_lines.join("\n")}\n", ".txt")
      end

      # The request body, in a file the engine reads (--body).
      def body_file(dir) = body && Plan::Workload.own_file(dir, "body", name, body)

      # A file of this run's content: named by the workload's name and a
      # digest of name and content (create-1 and create_1 never share one),
      # and written every time (an --out directory reused from an earlier run
      # never lends its old files).
      def self.own_file(dir, kind, name, content, ext = "")
        digest = Digest::SHA256.hexdigest("#{name}\0#{content}")[0, 12]
        path = File.join(dir, "#{kind}-#{name.gsub(/[^\w.-]/, "_")[0, 60]}-#{digest}#{ext}")
        temp = "#{path}.#{Process.pid}.tmp"
        # A server on --server-host has its directory there: here it may not exist yet.
        FileUtils.mkdir_p(dir)
        File.binwrite(temp, content)
        File.rename(temp, path)
        path
      end

      # A member with samples is one line a sample, its weight shared between
      # them: every weight is first scaled up (as far as the engine's limit of
      # 1,000,000 a line allows) so the shares stay close after rounding.
      def mix_lines
        scale = (mix.any? { |_, wl| wl.samples }) ? (1_000_000 / mix.map(&:first).max).clamp(1, 1000) : 1
        names = mix_names
        mix.each_with_index.flat_map do |(weight, wl), i|
          paths = wl.samples || [wl.path]
          each = [(weight * scale).fdiv(paths.size).round, 1].max
          paths.map { |p| ["#{each}:#{names[i]}", wl.method, p, wl.expect_status || "*", wl.expect_body].compact.join(" ") }
        end
      end

      # Each member's name as the engine takes it (letters, digits, _ . -),
      # made unique where two would read the same: the engine reports each
      # member apart under it, a member's sampled paths together.
      def mix_names
        mix.each_with_object([]) do |(_, wl), names|
          name = wl.name.to_s.gsub(/[^\w.-]/, "_")[0, 100]
          name = "r" if name.empty?
          name = "#{name}.#{names.size}" if names.include?(name)
          names << name
        end
      end

      def to_h
        h = {name: name, path: path, method: method, expect_status: expect_status, expect_body: expect_body}
        h[:headers] = headers.keys if headers && !headers.empty? # names only: values may be secrets
        h[:paths] = samples.size if samples # how many, not which: they may carry ids
        h[:mix] = mix.map { |weight, wl| {weight: weight}.merge(wl.to_h) } if mix?
        h[:pipeline] = pipeline if pipeline
        h
      end
    end

    module Workloads
      PRIMES_1000 = 3_682_913
      PI_PREFIX = "3.14159265358979323846"
      PAGE_BYTES = 4_700

      def self.builtin
        @builtin ||= [
          w("server", "/server", expect_body: "pid: "),
          w("pi", "/pi?digits=5000", expect_body: PI_PREFIX,
            body_rule: ->(b, _) { (b.start_with?(PI_PREFIX) && b.bytesize == 5002) ? nil : "not 5,000 digits of pi" }),
          w("sleep", "/sleep?ms=1000", expect_body: "slept 1000 ms"),
          w("random", "/random", body_rule: ->(b, _) { b.empty? ? "empty body" : nil }),
          w("primes", "/primes?count=1000", expect_body: PRIMES_1000.to_s,
            body_rule: ->(b, _) { primes_rule(b) }),
          # The same sum by trial division in Ruby: the CPU-heavy request (about 50x /primes).
          w("trial", "/trial?count=1000", expect_body: PRIMES_1000.to_s,
            body_rule: ->(b, _) { primes_rule(b) }),
          w("ip", "/ip", body_rule: ->(b, bind) { ip_rule(b, bind) }),
          w("json", "/json", content_type: %r{\Aapplication/json}, expect_body: "Hello, World!"),
          w("body", "/body?kb=64", body_rule: ->(b, _) { (b.bytesize == 65_536) ? nil : "expected 65536 bytes, got #{b.bytesize}" }),
          # A page of 4,700 bytes: a typical HTML page, over the 4 KB that a
          # server writing in pieces without TCP_NODELAY may stall on.
          w("page", "/body?bytes=#{PAGE_BYTES}", body_rule: ->(b, _) { (b.bytesize == PAGE_BYTES) ? nil : "expected #{PAGE_BYTES} bytes, got #{b.bytesize}" }),
          w("upload", "/upload", method: "POST", body: "u" * 10_240, expect_body: "10240"),
          w("stream", "/stream?chunks=5&ms=20", framing: :chunked,
            body_rule: ->(b, _) { (b == (0..4).map { |i| "chunk #{i}\n" }.join) ? nil : "stream body incomplete" }),
          # Retains 64 KB per request for good: a leak of known size (soak).
          w("leak", "/leak?kb=64", expect_body: "leaked 64 KB")
        ].to_h { |wl| [wl.name, wl] }.freeze
      end

      def self.w(name, path, method: "GET", body: nil, content_type: %r{\Atext/plain}, expect_body: nil, body_rule: nil, framing: nil)
        Plan::Workload.new(name: name, path: path, method: method, body: body, content_type: content_type,
          expect_status: 200, expect_body: expect_body, body_rule: body_rule, framing: framing).freeze
      end

      def self.primes_rule(body)
        (body.strip == PRIMES_1000.to_s) ? nil : "sum of the first 1000 primes is #{PRIMES_1000}, got #{body[0, 20].inspect}"
      end

      # Over TCP without a proxy the app must see the engine's own address; through
      # a unix socket or a proxy any well-formed address (or none) is right.
      def self.ip_rule(body, bind)
        return nil unless bind&.tcp?
        body.strip.start_with?("127.") ? nil : "REMOTE_ADDR is #{body.strip.inspect}, expected a loopback address"
      end

      # The default arena's one workload. /server and /json are both a few
      # microseconds of Ruby; in two default arenas of 2026-11-25 a server's
      # /json read 0.77-1.35 and 0.78-1.58 of its /server, with no order kept
      # between the runs (Agoo's /json 0.38 once: its poll timer). Measured
      # both, the default arena took 283-335 s here for 11 servers, over its 3
      # minutes. /server is kept: its body names the worker that answered.
      # --workload server,json measures both.
      DEFAULT = %w[server].freeze

      # Names of built-in workloads, or for a user's app, paths written as
      # PATH[=STATUS[:BODY_SUBSTRING]].
      def self.resolve(list, builtin_app:)
        list = rejoin_queries(list) unless builtin_app
        list.map do |item|
          if builtin_app
            builtin.fetch(item) { raise UsageError, "unknown workload #{item.inspect} (known: #{builtin.keys.join(", ")})" }
          else
            custom(item)
          end
        end
      end

      # --workload is a comma-separated list: a piece that is not a path, after
      # a path with a query string, was a comma of that query ("?ids=1,2").
      def self.rejoin_queries(list)
        list.each_with_object([]) do |item, out|
          if out.last.is_a?(String) && out.last.include?("?") && item.is_a?(String) && !item.start_with?("/")
            out[-1] = "#{out.last},#{item}"
          else
            out << item
          end
        end
      end

      REQUESTS_FILE_HINT = "or name the request in a requests file: --requests FILE"
      # --header 'Name: value'
      def self.header(text)
        name, value = text.split(":", 2)
        unless value && name.match?(/\A[!#$%&'*+.^_`|~0-9A-Za-z-]+\z/) && !value.match?(/[\x00-\x08\x0a-\x1f\x7f]/)
          raise UsageError, "--header #{text.inspect}: write 'Name: value'"
        end
        {name => value.strip}
      end

      def self.custom(spec)
        unless spec.start_with?("/")
          raise UsageError, "workload #{spec.inspect} must be a path starting with / (built-in workload names are for " \
            "the built-in app; #{REQUESTS_FILE_HINT})"
        end
        path, expect = split_expectation(spec)
        # A CR or LF would end the request line and inject a header.
        if path.match?(/[\s\x00-\x1f\x7f]/)
          raise UsageError, "workload #{spec.inspect}: a path has no spaces or control characters (encode them: %20, %0D)"
        end
        status, body = expect.to_s.split(":", 2)
        status = status.to_s.empty? ? 200 : Integer(status, exception: false)
        raise UsageError, "workload #{spec.inspect}: a status is between 100 and 599" if status && !status.between?(100, 599)
        if body && (body.empty? || body.match?(/[\x00-\x1f\x7f]/))
          raise UsageError, "workload #{spec.inspect}: the body check after ':' is empty or has a control character"
        end
        unless status
          raise UsageError, "workload #{spec.inspect}: status must be a number (PATH=STATUS[:BODY], e.g. " \
            "/books?limit=2=200; #{REQUESTS_FILE_HINT})"
        end
        Plan::Workload.new(name: path, path: path, method: "GET", content_type: nil, expect_status: status,
          expect_body: body).freeze
      end

      # Several workloads as one mix, as a tune loads them: each given
      # workload an equal share, a mix's own weights kept inside its share
      # (weights scaled by the least common multiple of the mixes' sums, then
      # reduced). One workload is itself. The engine sends one set of headers
      # and one body for a whole mix: workloads that differ in either are refused.
      def self.mixed(list, name: nil)
        return list.first if list.size == 1
        parts = list.map { |wl| wl.mix || [[1, wl]] }
        common = parts.map { |p| p.sum(&:first) }.reduce(1) { |a, b| a.lcm(b) }
        members = parts.flat_map { |p| p.map { |w, wl| [w * common / p.sum(&:first), wl] } }
        gcd = members.map(&:first).reduce(0) { |a, b| a.gcd(b) }
        members = members.map { |w, wl| [w / gcd, wl] }.freeze
        mix_agrees!(list, members.map(&:last))
        first = members.first.last
        Plan::Workload.new(name: name || mix_name(list), path: first.path, method: first.method,
          body: members.map(&:last).filter_map(&:body).first, content_type: nil, expect_status: nil, expect_body: nil,
          headers: first.headers, mix: members).freeze
      end

      def self.mix_name(list)
        joined = list.map(&:name).join("+")
        (joined.size <= 40) ? joined : "mix"
      end

      def self.mix_agrees!(list, requests)
        names = list.map(&:name).join(", ")
        if requests.map { |r| r.headers || {} }.uniq.size > 1
          raise UsageError, "#{names} send different headers: the engine sends one set for a whole mix; give them one at a time"
        end
        return if requests.filter_map(&:body).uniq.size <= 1
        raise UsageError, "#{names} send different bodies: the engine sends one body for a whole mix; give them one at a time"
      end

      # Where PATH ends. Without a query string, at the first "=". In a query
      # string an "=" after a key is that key's value ("?limit=2"); the
      # expectation starts at an "=" after a
      # whole pair ("?limit=2=404"; "?flag=404" is the key flag with the value
      # 404, so write "?flag=404=200" for both).
      def self.split_expectation(spec)
        eq = spec.index("=")
        q = spec.index("?")
        # An "=" before any "?": the old syntax (a body substring may hold "?").
        return spec.split("=", 2) if eq.nil? || q.nil? || eq < q
        base, query = spec.split("?", 2)
        at = expectation_start(query)
        at ? ["#{base}?#{query[0...at]}", query[(at + 1)..]] : [spec, nil]
      end

      # The index in the query string of the "=" that starts the expectation:
      # the first "=" of a pair's second "=" (key=value=STATUS).
      def self.expectation_start(query)
        offset = 0
        query.split("&", -1).each do |pair|
          first = pair.index("=")
          second = first && pair.index("=", first + 1)
          return offset + second if second
          offset += pair.size + 1
        end
        nil
      end
    end
  end
end
