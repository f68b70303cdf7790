#!/usr/bin/env bash
# Makes the media API emulator's video results, once, with ffmpeg (Debian: apt-get install ffmpeg
# fonts-dejavu-core): one short H.264 clip per aspect ratio the service takes, which browsers, Discord
# and Slack all play, each saying on every frame that it is the emulator's and not a real video.
# The clips are committed (test/fakes/media-api/clips/); `npm ci` never runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
out=test/fakes/media-api/clips
seconds=4
bold=$(fc-match -f '%{file}' 'DejaVu Sans:bold')
regular=$(fc-match -f '%{file}' 'DejaVu Sans')
mkdir -p "$out"

# ratio width height: 480 pixels on the long side (even sizes, as yuv420p needs).
while read -r ratio width height; do
  short=$((width < height ? width : height))
  ball=$((short / 5))
  # The title fits the width of the narrowest clip.
  title=$((short / 9 < width / 12 ? short / 9 : width / 12))
  label=${ratio/:/\\:}
  ffmpeg -nostdin -hide_banner -loglevel error -y \
    -f lavfi -i "gradients=s=${width}x${height}:c0=0x1b2a49:c1=0x5b3a7a:x0=0:y0=0:x1=${width}:y1=${height}:speed=0.02:d=${seconds}:r=24" \
    -f lavfi -i "color=c=0xffd27a:s=${ball}x${ball}:d=${seconds}:r=24,format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='if(lte(hypot(X-W/2,Y-H/2),W/2),255,0)'" \
    -f lavfi -i "color=c=white:s=${width}x6:d=${seconds}:r=24" \
    -filter_complex "\
[0][1]overlay=x='(W-w)*t/${seconds}':y='H*0.5+sin(t*3)*H*0.1'[a];\
[a][2]overlay=x='-W+W*t/${seconds}':y=H-h[b];\
[b]drawtext=fontfile=${bold}:text='media-bot emulator':fontcolor=white:fontsize=${title}:x=(w-tw)/2:y=h*0.1,\
drawtext=fontfile=${regular}:text='${label} · not a real video':fontcolor=white@0.85:fontsize=${title}*0.55:x=(w-tw)/2:y=h*0.1+${title}*1.6,\
drawtext=fontfile=${regular}:text='%{eif\:t\:d}.%{eif\:mod(t*10\,10)\:d} s':fontcolor=white:fontsize=${title}*0.65:x=w-tw-12:y=h-th-18" \
    -c:v libx264 -preset veryslow -crf 32 -pix_fmt yuv420p -profile:v main -level 3.0 \
    -movflags +faststart -an -map_metadata -1 -fflags +bitexact -flags:v +bitexact \
    -metadata title="media-bot emulator clip (${ratio})" \
    "$out/${ratio/:/x}.mp4"
  echo "$out/${ratio/:/x}.mp4: $(stat -c %s "$out/${ratio/:/x}.mp4") bytes"
done <<'RATIOS'
16:9 480 270
9:16 270 480
1:1 360 360
4:3 480 360
3:4 360 480
RATIOS
