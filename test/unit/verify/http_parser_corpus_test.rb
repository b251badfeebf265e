# frozen_string_literal: true

require_relative "../../test_helper"
require "arena"
require "open3"

# The probe's parser and the engine's on the same inputs: the response
# corpus (ext/arena_load/test/corpus/responses.txt), each case's first
# response as each parser sees it. A verification that passes a response the
# engine then counts as a parse error (or the reverse) would be a lie.
class HttpParserCorpusTest < Minitest::Test
  EXT = File.expand_path("../../../ext/arena_load", __dir__)
  CORPUS = File.join(EXT, "test/corpus/responses.txt")
  LISTER = File.join(EXT, "build/test_corpus")

  Case = Struct.new(:name, :eof, :head, :data, keyword_init: true)

  def self.cases
    out = []
    File.foreach(CORPUS) do |line|
      case line
      when /\A== (.*)/ then out << Case.new(name: $1, eof: false, head: false, data: +"".b)
      when /\Aflags: (.*)/ then out.last.eof, out.last.head = $1.include?("eof"), $1.include?("head")
      when /\A> (.*)/ then out.last.data << unescape($1)
      when /\A@ (\d+) (.*)/ then out.last.data << unescape($2) * $1.to_i
      end
    end
    out
  end

  def self.unescape(text)
    text.gsub(/\\(x\h\h|[rnt0\\])/) do
      m = $1
      {"r" => "\r", "n" => "\n", "t" => "\t", "0" => "\0", "\\" => "\\"}.fetch(m) { m[1..].hex.chr }
    end.b
  end

  def engine_outcomes
    unless File.executable?(LISTER)
      _, err, status = Open3.capture3("make", "-s", "-C", EXT, "build/test_corpus")
      skip "cannot build the corpus lister: #{err.lines.first}" unless status.success?
    end
    out, status = Open3.capture2(LISTER, "--list", CORPUS)
    assert status.success?
    out.lines.to_h { |l| l.chomp.split("\t", 3).then { |name, outcome, _| [name, outcome.split.first] } }
  end

  def probe_outcome(c)
    parser = Arena::Verify::HttpProbe::Parser.new(head: c.head)
    parser << c.data
    parser.eof! if !parser.done? && c.eof
    return "incomplete" unless parser.done?
    "#{parser.status}/#{parser.body.bytesize}"
  rescue Arena::Verify::HttpProbe::Failure
    "error"
  end

  def test_the_probe_and_the_engine_agree_on_every_case
    engine = engine_outcomes
    cases = self.class.cases
    assert_operator cases.size, :>=, 50
    disagreements = cases.filter_map do |c|
      theirs = engine.fetch(c.name).sub(%r{/(ka|close)\z}, "")
      # The engine leaves a response cut by the close unfinished; the probe calls it a failure.
      theirs = "error" if theirs == "incomplete" && c.eof
      ours = probe_outcome(c)
      "#{c.name}: engine #{theirs}, probe #{ours}" unless theirs == ours
    end
    assert_empty disagreements
  end
end
