# frozen_string_literal: true

require "json"
require "open3"
require "tmpdir"
require_relative "../load/engine"
require_relative "../load/settings"
require_relative "../plan/machine"

module Arena
  class Verify
    # Verification of the transport: a few requests through the engine itself
    # (the client the figures will come from), over what the run asked for,
    # then the protocol it negotiated compared with the one expected. A server
    # that answers over HTTP/1.1 when h2 was asked, or whose certificate fails,
    # fails here in one line instead of being measured as something else.
    class TransportCheck
      Outcome = Struct.new(:protocol, :tls, :problem, keyword_init: true) do
        def ok? = problem.nil?
      end

      def initialize(transport:, engine_path: Load::Engine.path)
        @transport = transport
        @engine_path = engine_path
      end

      def call(entry, path: "/")
        return Outcome.new(protocol: "http/1.1").freeze if @transport.plain?
        out, err, status = Open3.capture3(*argv(entry, path))
        return Outcome.new(problem: "the engine could not run over #{@transport.name}: #{err.lines.last&.strip}").freeze unless status.success?
        doc = JSON.parse(out)
        judge(doc.fetch("transport", {}), doc.fetch("errors", {}))
      rescue JSON::ParserError => e
        Outcome.new(problem: "the engine's output was not JSON (#{e.message})").freeze
      end

      # A few requests on one connection, built as every engine run's argv is
      # (Load::Engine#argv: the transport's flags come from there alone).
      def argv(entry, path)
        settings = Load::Settings.build(requests: 4, duration: 2.0, connections: 1, timeout: 5.0, expect_status: "any",
          transport: @transport, cacert: entry.ca)
        Load::Engine.new(dir: Dir.tmpdir, path: @engine_path, machine: Plan::Machine.new(cores: 1, shared: true)).argv(entry.target(path), settings)
      end

      private

      def judge(t, errors)
        protocol = t["protocol"].to_s
        kinds = errors.reject { |k, v| k == "total" || v.to_i.zero? }.keys
        problem = if protocol.empty?
          "no connection over #{@transport.name} (#{kinds.join(", ").then { |k| k.empty? ? "no answer" : k }})"
        elsif protocol != @transport.protocol
          "negotiated #{protocol}, expected #{@transport.protocol}"
        end
        Outcome.new(protocol: protocol, tls: t["tls"], problem: problem).freeze
      end
    end
  end
end
