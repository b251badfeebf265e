# frozen_string_literal: true

require_relative "http_probe"

module Arena
  # Pre-flight: one request per workload, checked the way TechEmpower checks
  # before it benchmarks (status, Content-Type, framing, body). A server that
  # fails here is reported as failed and never loaded.
  class Verify
    Outcome = Struct.new(:workload, :ok, :problems, keyword_init: true) do
      def to_h = {"workload" => workload, "ok" => ok, "problems" => problems}
    end

    # bind is the server's own (rules such as /ip depend on it); the probe may
    # go through a proxy in front of it.
    # headers: the user's --header, sent with every request, these included.
    def initialize(bind:, probe: HttpProbe.new(bind, timeout: 10), headers: {})
      @bind = bind
      @probe = probe
      @headers = headers
    end

    def call(workloads)
      workloads.map { |wl| check(wl) }
    end

    def check(workload)
      response = @probe.request(workload.method, workload.path, body: workload.body, headers: @headers)
      problems = problems_of(workload, response)
      Outcome.new(workload: workload.name, ok: problems.empty?, problems: problems)
    rescue HttpProbe::Failure => e
      Outcome.new(workload: workload.name, ok: false, problems: ["no response: #{e.message}"])
    end

    def problems_of(workload, response)
      problems = []
      problems << "status #{response.status}, expected #{workload.expect_status}" if response.status != workload.expect_status
      if workload.content_type && !workload.content_type.match?(response["content-type"].to_s)
        problems << "Content-Type #{response["content-type"].inspect} does not match #{workload.content_type.inspect}"
      end
      problems << framing_problem(workload, response)
      if response["content-length"] && response["content-length"].to_i != response.body.bytesize
        problems << "Content-Length #{response["content-length"]} but #{response.body.bytesize} body bytes"
      end
      problems << workload.check_body(response.body, @bind)
      problems.compact
    end

    # A body of known size must say so; a streamed one may be chunked, or
    # delimited by a close the server announces (Unicorn has no chunking).
    def framing_problem(workload, response)
      closes = response["connection"].to_s.downcase.include?("close")
      if workload.framing == :chunked
        "expected a chunked (or announced close-delimited) response" unless response.chunked || closes
      elsif !(response["content-length"] || response.chunked)
        "neither Content-Length nor chunked encoding"
      end
    end
  end
end
