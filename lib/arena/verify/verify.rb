# frozen_string_literal: true

require_relative "http_probe"

module Arena
  # Pre-flight: one request per workload, checked the way TechEmpower checks
  # before it benchmarks (status, Content-Type, framing, body). A server that
  # fails here is reported as failed and never loaded.
  class Verify
    # status: what the server answered (the last request of a mix), nil for no answer.
    Outcome = Struct.new(:workload, :ok, :problems, :status, keyword_init: true) do
      def to_h = {"workload" => workload, "ok" => ok, "problems" => problems}
    end

    # bind is the server's own (rules such as /ip depend on it); the probe may
    # go through a proxy in front of it.
    # headers: the user's --header, sent with every request, these included.
    def initialize(bind:, probe: Verify::HttpProbe.new(bind, timeout: 10), headers: {})
      @bind = bind
      @probe = probe
      @headers = headers
    end

    def call(workloads)
      workloads.map { |wl| check(wl) }
    end

    # A mix is checked request by request, each named in its problems.
    def check(workload)
      @status = nil
      problems = if workload.mix?
        workload.mix.flat_map { |_, member| request_problems(member).map { |p| "#{member.name}: #{p}" } }
      else
        request_problems(workload)
      end
      status = @status
      problems += (workload.checks || []).flat_map { |check| request_problems(check).map { |p| "#{check.path}: #{p}" } }
      @status = status
      Outcome.new(workload: workload.name, ok: problems.empty?, problems: problems, status: @status)
    end

    def request_problems(workload)
      headers = @headers.merge(workload.headers || {})
      response = @probe.request(workload.method, workload.path, body: workload.body, headers: headers)
      @status = response.status
      problems_of(workload, response)
    rescue Verify::HttpProbe::Truncated => e
      [e.message]
    rescue Verify::HttpProbe::Failure => e
      ["no response: #{e.message}"]
    end

    def problems_of(workload, response)
      problems = []
      problems << status_problem(workload, response) if response.status != workload.expect_status
      if workload.content_type && !workload.content_type.match?(response["content-type"].to_s)
        problems << "Content-Type #{response["content-type"].inspect} does not match #{workload.content_type.inspect}"
      end
      problems << framing_problem(workload, response)
      if response["content-length"] && response["content-length"].to_i != response.body.bytesize
        problems << "Content-Length #{response["content-length"]} but #{response.body.bytesize} body bytes"
      end
      problems << workload.check_body(response.body, @bind)
      problems << workload.header_rule&.call(response)
      problems.compact
    end

    # A redirect says where to; one to https:// on the same path is an app
    # that forces SSL (Rails' config.force_ssl in production), which a
    # TLS-terminating proxy satisfies with X-Forwarded-Proto.
    def status_problem(workload, response)
      text = "status #{response.status}, expected #{workload.expect_status}"
      location = response["location"]
      return text unless response.status.between?(300, 399) && location
      text += " (redirect to #{location})"
      https = location.match(%r{\Ahttps://[^/]+(/[^?#]*)?})
      same_path = https && (https[1] || "/") == workload.path.split("?").first
      return text unless same_path
      "#{text}: the app forces SSL (Rails `config.force_ssl`): add `--header 'X-Forwarded-Proto: https'`"
    end

    # A body of known size must say so; a streamed one may be chunked, or
    # delimited by a close the server announces (Unicorn has no chunking).
    #
    # A body of known size without Content-Length but with an announced close
    # (Thin and Unicorn on a Rack 3 app that leaves framing to the server, as
    # Rails does) is valid HTTP/1.1: it ends where the connection does. It
    # costs a connection per request, which the throughput shows. Without
    # the announcement the client cannot tell where the body ends.
    def framing_problem(workload, response)
      closes = response["connection"].to_s.downcase.include?("close")
      if workload.framing == :chunked
        "expected a chunked (or announced close-delimited) response" unless response.chunked || closes
      elsif !(response["content-length"] || response.chunked || closes)
        "neither Content-Length nor chunked encoding, and no Connection: close"
      end
    end
  end
end
