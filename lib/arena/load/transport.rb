# frozen_string_literal: true

require_relative "../core"

module Arena
  module Load
    # How clients reach the server under test: plain HTTP/1.1, HTTP/1.1 over
    # TLS, HTTP/2 over TLS (ALPN h2) or h2c (HTTP/2 on plain TCP, prior
    # knowledge). The server (or the front before it) serves it; the engine
    # speaks it (ext/arena_load/transport.h); verification checks what was
    # negotiated. `--h2-streams` is the HTTP/2 depth per connection.
    Transport = Struct.new(:name, :h2_streams, :tls_resume, keyword_init: true) do
      const_set(:NAMES, %w[http1 tls h2 h2c].freeze)

      def self.parse(name, h2_streams: nil, tls_resume: false)
        raise UsageError, "--transport must be one of #{self::NAMES.join(", ")}" unless self::NAMES.include?(name.to_s)
        raise UsageError, "--h2-streams is for --transport h2 or h2c" if h2_streams && !%w[h2 h2c].include?(name.to_s)
        raise UsageError, "--tls-resume is for --transport tls or h2" if tls_resume && !%w[tls h2].include?(name.to_s)
        new(name: name.to_s, h2_streams: h2_streams, tls_resume: tls_resume).freeze
      end

      def self.plain = parse("http1")

      # The run's transport from its load settings' three rows (Load::TABLE).
      def self.of(load) = parse(load.transport || "http1", h2_streams: load.h2_streams, tls_resume: load.tls_resume || false)

      def tls? = %w[tls h2].include?(name)

      def h2? = %w[h2 h2c].include?(name)

      def plain? = name == "http1"

      # What the engine must report as negotiated.
      def protocol = {"http1" => "http/1.1", "tls" => "http/1.1", "h2" => "h2", "h2c" => "h2c"}.fetch(name)

      # The engine's flags (the target's scheme says TLS). ca: the run's CA to
      # verify against, nil when the server made its own certificate.
      def engine_flags(ca: nil)
        flags = []
        flags += ["--http2", "--h2-streams", (h2_streams || 1).to_s] if h2?
        flags << "--tls-resume" if tls_resume
        flags += ["--cacert", ca] if ca && tls?
        flags
      end

      def to_h = {"name" => name, "protocol" => protocol, "h2_streams" => h2_streams, "tls_resume" => tls_resume}
    end
  end
end
