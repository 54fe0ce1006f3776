<?xml version="1.0" encoding="UTF-8"?>
<!--
  How a browser shows the sitemap files: the index as a table of its files, a urlset as a table
  of its URLs. Search engines ignore it; the files stay plain sitemaps. XSLT 1.0 only (what
  browsers run). A file name sitemap-<section>-<shard>.xml.gz gives the section column. No
  inline style or script: its style is sitemap.css, the view's, published beside it, so the
  distribution's Content-Security-Policy (style-src 'self') holds.
-->
<xsl:stylesheet version="1.0"
    xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"
    xmlns:xhtml="http://www.w3.org/1999/xhtml"
    xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
    xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"
    xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"
    exclude-result-prefixes="sm xhtml image news video">

  <xsl:output method="html" encoding="UTF-8" indent="yes"
      doctype-system="about:legacy-compat"/>

  <xsl:variable name="none">—</xsl:variable>

  <xsl:template match="/">
    <html lang="en">
      <head>
        <meta charset="utf-8"/>
        <meta name="robots" content="noindex"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <title>
          <xsl:choose>
            <xsl:when test="sm:sitemapindex">Sitemap index</xsl:when>
            <xsl:otherwise>Sitemap</xsl:otherwise>
          </xsl:choose>
        </title>
        <link rel="stylesheet" href="sitemap.css"/>
      </head>
      <body class="xsl">
        <xsl:apply-templates select="sm:sitemapindex | sm:urlset"/>
        <p class="about">With search, sorting and readable URLs: <a href="sitemap.html">sitemap.html</a>.</p>
      </body>
    </html>
  </xsl:template>

  <!-- the index: one row per file -->
  <xsl:template match="sm:sitemapindex">
    <h1>Sitemap index</h1>
    <p class="about">
      This index lists <strong id="count"><xsl:value-of select="count(sm:sitemap)"/></strong>
      sitemap file(s). It is written for search engines; this table is how a browser shows it.
    </p>
    <table id="files">
      <thead>
        <tr><th>File</th><th>Section</th><th>Last modified</th></tr>
      </thead>
      <tbody>
        <xsl:for-each select="sm:sitemap">
          <xsl:variable name="loc" select="normalize-space(sm:loc)"/>
          <tr>
            <td><a href="{$loc}"><xsl:value-of select="$loc"/></a></td>
            <td class="section">
              <xsl:call-template name="section">
                <xsl:with-param name="name">
                  <xsl:call-template name="after-last">
                    <xsl:with-param name="text" select="$loc"/>
                    <xsl:with-param name="mark" select="'/'"/>
                  </xsl:call-template>
                </xsl:with-param>
              </xsl:call-template>
            </td>
            <td class="lastmod"><xsl:call-template name="lastmod"/></td>
          </tr>
        </xsl:for-each>
      </tbody>
    </table>
  </xsl:template>

  <!-- a urlset: one row per URL -->
  <xsl:template match="sm:urlset">
    <h1>Sitemap</h1>
    <p class="about">
      This file lists <strong id="count"><xsl:value-of select="count(sm:url)"/></strong>
      URL(s). It is written for search engines; this table is how a browser shows it.
    </p>
    <table id="urls">
      <thead>
        <tr>
          <th>URL</th><th>Last modified</th><th>Alternates</th>
          <th>Images</th><th>News / video</th>
        </tr>
      </thead>
      <tbody>
        <xsl:for-each select="sm:url">
          <xsl:variable name="loc" select="normalize-space(sm:loc)"/>
          <tr>
            <td><a href="{$loc}"><xsl:value-of select="$loc"/></a></td>
            <td class="lastmod"><xsl:call-template name="lastmod"/></td>
            <td class="alternates">
              <xsl:choose>
                <xsl:when test="xhtml:link">
                  <ul>
                    <xsl:for-each select="xhtml:link">
                      <li>
                        <span class="hreflang"><xsl:value-of select="@hreflang"/></span>
                        <a href="{@href}"><xsl:value-of select="@href"/></a>
                      </li>
                    </xsl:for-each>
                  </ul>
                </xsl:when>
                <xsl:otherwise><span class="muted"><xsl:value-of select="$none"/></span></xsl:otherwise>
              </xsl:choose>
            </td>
            <td class="images">
              <span class="n"><xsl:value-of select="count(image:image)"/></span>
              <xsl:for-each select="image:image">
                <xsl:text> </xsl:text>
                <a href="{normalize-space(image:loc)}" title="{normalize-space(image:loc)}">
                  <xsl:value-of select="concat('[', position(), ']')"/>
                </a>
              </xsl:for-each>
            </td>
            <td>
              <xsl:apply-templates select="news:news | video:video"/>
              <xsl:if test="not(news:news | video:video)">
                <span class="muted"><xsl:value-of select="$none"/></span>
              </xsl:if>
            </td>
          </tr>
        </xsl:for-each>
      </tbody>
    </table>
  </xsl:template>

  <xsl:template match="news:news">
    <div>News: <xsl:value-of select="news:title"/>
      <span class="muted"> (<xsl:value-of select="news:publication/news:name"/>,
        <xsl:value-of select="news:publication_date"/>)</span></div>
  </xsl:template>

  <xsl:template match="video:video">
    <div>Video: <xsl:value-of select="video:title"/></div>
  </xsl:template>

  <xsl:template name="lastmod">
    <xsl:choose>
      <xsl:when test="sm:lastmod"><xsl:value-of select="sm:lastmod"/></xsl:when>
      <xsl:otherwise><span class="muted"><xsl:value-of select="$none"/></span></xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <!-- the section of a file name sitemap-<section>-<shard>.xml.gz: all before its last "-";
       a name with no section (sitemap-r0101.xml.gz, sitemap-home.xml.gz) shows the dash -->
  <xsl:template name="section">
    <xsl:param name="name"/>
    <xsl:variable name="base" select="substring-before(concat($name, '.xml'), '.xml')"/>
    <xsl:variable name="rest" select="substring-after($base, 'sitemap-')"/>
    <xsl:choose>
      <xsl:when test="starts-with($base, 'sitemap-') and contains($rest, '-')">
        <xsl:call-template name="before-last">
          <xsl:with-param name="text" select="$rest"/>
          <xsl:with-param name="mark" select="'-'"/>
        </xsl:call-template>
      </xsl:when>
      <xsl:otherwise><xsl:value-of select="$none"/></xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <!-- what follows the last $mark in $text ($text when it holds none) -->
  <xsl:template name="after-last">
    <xsl:param name="text"/>
    <xsl:param name="mark"/>
    <xsl:choose>
      <xsl:when test="contains($text, $mark)">
        <xsl:call-template name="after-last">
          <xsl:with-param name="text" select="substring-after($text, $mark)"/>
          <xsl:with-param name="mark" select="$mark"/>
        </xsl:call-template>
      </xsl:when>
      <xsl:otherwise><xsl:value-of select="$text"/></xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <!-- what comes before the last $mark in $text (which holds one) -->
  <xsl:template name="before-last">
    <xsl:param name="text"/>
    <xsl:param name="mark"/>
    <xsl:value-of select="substring-before($text, $mark)"/>
    <xsl:variable name="tail" select="substring-after($text, $mark)"/>
    <xsl:if test="contains($tail, $mark)">
      <xsl:value-of select="$mark"/>
      <xsl:call-template name="before-last">
        <xsl:with-param name="text" select="$tail"/>
        <xsl:with-param name="mark" select="$mark"/>
      </xsl:call-template>
    </xsl:if>
  </xsl:template>
</xsl:stylesheet>
