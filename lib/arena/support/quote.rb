# frozen_string_literal: true

require "json"
require "shellwords"
require_relative "../core"

module Arena
  module Support
    # Values written into files another program parses (tune's config files,
    # nginx.conf): one place that says how each format quotes, and refuses
    # what no quoting makes safe. A control character (a newline above all)
    # would start a new line, a new key or a new command: it is refused in
    # every format, with one UsageError line.
    module Quote
      CONTROL = /[\x00-\x1f\x7f]/

      # A word the shell expands as it is ("${PORT:-3000}"), written unquoted.
      class Expansion < String; end

      module_function

      def plain!(value, what = "value")
        text = value.to_s
        raise UsageError, "#{what} #{text.inspect} has a control character: refused in a config file" if text.match?(CONTROL)
        text
      end

      # One shell word ('...' quoting where needed); an Expansion as it is.
      def sh(word, what = "value")
        return word if word.is_a?(Expansion)
        Shellwords.escape(plain!(word, what))
      end

      # "${PORT:-N}" after a literal prefix ("http://0.0.0.0:").
      def port(prefix = "", default:) = Expansion.new("#{sh(prefix) unless prefix.empty?}${PORT:-#{Integer(default)}}")

      # A YAML scalar: JSON's double-quoted string is one.
      def yaml(value, what = "value") = JSON.generate(plain!(value, what))

      # uWSGI's ini takes a value to the end of its line, trims white space at
      # both ends and expands $(VAR), %(key), %x magic and @(file): it has no
      # quoting, so those are refused instead.
      def ini(value, what = "value")
        text = plain!(value, what)
        if text != text.strip || text.match?(/[$@%]/)
          raise UsageError, "#{what} #{text.inspect}: uWSGI's ini cannot hold leading or trailing spaces, $, @ or %"
        end
        text
      end

      # An nginx string: double quotes, with \ and " escaped; $ would be a
      # variable, so it is refused.
      def nginx(value, what = "value")
        text = plain!(value, what)
        raise UsageError, "#{what} #{text.inspect}: nginx would read $ as a variable" if text.include?("$")
        "\"#{text.gsub(/[\\"]/) { |c| "\\#{c}" }}\""
      end
    end
  end
end
