# frozen_string_literal: true

require "socket"
require_relative "../core"

module Arena
  class Agent
    # A request's fields, each checked for its type (and range) before any
    # use: a caller's mistake, or a hostile line, is one refused request, never
    # a TypeError that ends the agent and what it started.
    class Fields
      class Bad < Error; end

      HANDLE = /\A\d+-[\w.-]{1,60}\z/

      def initialize(request) = @request = request

      def string(key, pattern: nil, default: :required, max: 4096)
        value = fetch(key, default)
        return value if value.equal?(default) && default != :required
        bad!(key, "a string") unless value.is_a?(String) && value.bytesize <= max
        bad!(key, "printable text") if value.match?(/[\x00-\x1f\x7f]/)
        bad!(key, "a value like #{pattern.source}") if pattern && !value.match?(pattern)
        value
      end

      def integer(key, range, default: :required)
        value = fetch(key, default)
        return value if value.equal?(default) && default != :required
        bad!(key, "a whole number in #{range}") unless value.is_a?(Integer) && range.cover?(value)
        value
      end

      def number(key, range, default: :required)
        value = fetch(key, default)
        return value if value.equal?(default) && default != :required
        bad!(key, "a number in #{range}") unless value.is_a?(Numeric) && range.cover?(value)
        value.to_f
      end

      def words(key, pattern, max: 64, default: :required)
        value = fetch(key, default)
        return value if value.equal?(default) && default != :required
        unless value.is_a?(Array) && value.size <= max && value.all? { |v| v.is_a?(String) && v.match?(pattern) }
          bad!(key, "a list of up to #{max} strings like #{pattern.source}")
        end
        value
      end

      # A server's settings: names to plain values (the adapter checks them).
      def settings(key)
        value = fetch(key, {})
        ok = value.is_a?(Hash) && value.size <= 32 && value.all? do |k, v|
          k.is_a?(String) && k.match?(/\A\w{1,40}\z/) && (v.nil? || v == true || v == false || v.is_a?(Numeric) ||
            (v.is_a?(String) && v.bytesize <= 256 && !v.match?(/[\x00-\x1f\x7f]/)))
        end
        bad!(key, "an object of setting names to plain values") unless ok
        value
      end

      def given?(key) = @request.key?(key)

      # A value whose shape the caller checks itself (a list of tuples).
      def raw(key) = @request[key]

      def boolean(key, default:)
        value = fetch(key, default)
        bad!(key, "true or false") unless [true, false].include?(value)
        value
      end

      def handle = string("handle", max: 80)

      def object(key)
        value = fetch(key, :required)
        bad!(key, "an object") unless value.is_a?(Hash)
        value
      end

      def integers(key, range, max:)
        value = fetch(key, :required)
        bad!(key, "a list of up to #{max} whole numbers in #{range}") unless value.is_a?(Array) && value.size <= max &&
          value.all? { |v| v.is_a?(Integer) && range.cover?(v) }
        value
      end

      # The user's --env for a server: names as a shell would take them,
      # printable values.
      def env(key)
        value = fetch(key, {})
        ok = value.is_a?(Hash) && value.size <= 64 && value.all? do |k, v|
          k.is_a?(String) && k.match?(/\A[A-Za-z_][A-Za-z0-9_]{0,63}\z/) && v.is_a?(String) && v.bytesize <= 4096 &&
            !v.match?(/[\x00-\x1f\x7f]/)
        end
        bad!(key, "an object of variable names to printable strings") unless ok
        value
      end

      # A bind address this host owns: loopback or one of its interfaces'.
      # 0.0.0.0 and :: are not an address, and someone else's is not ours.
      def own_host(key = "host")
        host = string(key, max: 64)
        bad!(key, "an address of this host (#{Fields.own_addresses.join(", ")})") unless Fields.own_addresses.include?(host)
        host
      end

      def self.own_addresses
        Socket.ip_address_list.map { |a| a.ip_address.sub(/%.*\z/, "") }.reject { |a| a.start_with?("fe80:") } | ["127.0.0.1", "::1"]
      end

      def bad!(key, what) = raise(Bad, "field #{key}: expected #{what}")

      private

      def fetch(key, default)
        return @request[key] if @request.key?(key)
        bad!(key, "a value (it is missing)") if default == :required
        default
      end
    end
  end
end
