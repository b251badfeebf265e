# frozen_string_literal: true

require "json"
require "net/http"
require "openssl"
require "uri"

module Arena
  module Bundle
    # What is known of a server gem's release, for the answer's standing
    # (Tune::Standing): the installed spec's date, and rubygems.org's list of
    # the gem's versions when it answers within `timeout` seconds (nil
    # otherwise, quietly: a machine without the network still gets its
    # answer). RubyGems writes 1980-01-02 into the spec of a gem built for
    # reproducible builds: that is no release date. `url` is the registry's
    # versions endpoint with %s for the gem's name; ARENA_GEM_REGISTRY=off
    # asks nothing.
    class GemFacts
      REGISTRY = "https://rubygems.org/api/v1/versions/%s.json"
      PLACEHOLDER_DATE = "1980-01-02"

      # date: "YYYY-MM-DD" (nil: the registry gave none); prerelease: as the registry says; ruby: the Ruby it requires (">= 3.2.0"), or nil.
      Release = Struct.new(:version, :date, :prerelease, :ruby, keyword_init: true)

      # date: the installed spec's; releases: the registry's, newest first (nil: not reached).
      Facts = Struct.new(:name, :version, :date, :releases, keyword_init: true) do
        # This version's release date: its spec's, else the registry's.
        def released = date || releases&.find { |r| r.version == version && r.date }&.date
      end

      def initialize(url: ENV.fetch("ARENA_GEM_REGISTRY", REGISTRY), timeout: 3)
        @url = url
        @timeout = timeout
      end

      # name, version: the gem as installed; path: its directory (Bundle::Installation#path), or nil.
      def call(name:, version:, path:)
        Facts.new(name: name, version: version, date: spec_date(path), releases: releases(name)).freeze
      end

      private

      # specifications/NAME-VERSION.gemspec beside gems/NAME-VERSION: its `s.date`.
      def spec_date(path)
        return nil unless path
        spec = File.join(File.dirname(path, 2), "specifications", "#{File.basename(path)}.gemspec")
        date = File.file?(spec) && File.read(spec)[/^\s*s\.date = "(\d{4}-\d\d-\d\d)/, 1]
        (date && date != PLACEHOLDER_DATE) ? date : nil
      rescue SystemCallError
        nil
      end

      def releases(name)
        return nil if @url.to_s.empty? || @url == "off"
        list = JSON.parse(fetch(URI(format(@url, name))) || "null")
        return nil unless list.is_a?(Array)
        list.select { |v| v.is_a?(Hash) && v["number"] }.map do |v|
          Release.new(version: v["number"], date: v["created_at"].to_s[/\A\d{4}-\d\d-\d\d/], prerelease: v["prerelease"] == true,
            ruby: v["ruby_version"]).freeze
        end.freeze
      rescue JSON::ParserError, URI::Error, ArgumentError
        nil
      end

      # The body of a 200 answer within the timeout, else nil.
      def fetch(uri)
        http = Net::HTTP.new(uri.host, uri.port)
        http.use_ssl = uri.scheme == "https"
        http.open_timeout = http.read_timeout = http.ssl_timeout = @timeout
        response = http.start { |h| h.get(uri.request_uri) }
        response.is_a?(Net::HTTPOK) ? response.body : nil
      rescue SystemCallError, IOError, Timeout::Error, SocketError, OpenSSL::SSL::SSLError, Net::HTTPBadResponse, Net::ProtocolError
        nil
      end
    end
  end
end
